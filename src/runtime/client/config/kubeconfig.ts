import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, sep } from 'node:path';
// js-yaml, as client-node's own kubeconfig loading uses: one ES module, where `yaml` loads some
// 70 CommonJS files (about 7 MB more memory in every operator for parsing one small file).
import { CORE_SCHEMA, load as parseYaml, Type, YAMLException } from 'js-yaml';
// Deep import on purpose (memory): client-node's index, and its dist/config.js (KubeConfig),
// load its whole generated API, about 65 MB of resident memory in every operator. Its entry
// parsing and checks (what KubeConfig.loadFromString runs) live in this small module, which
// costs about 2 MB. Token-file auth providers are likewise imported from their own module, on
// first use (see Transport); exec plugins are run by kop itself (exec-credential.ts); only
// oidc/azure/gcp load the index.
import { newClusters, newContexts, newUsers } from '@kubernetes/client-node/dist/config_types.js';
import type { Cluster, Context, User } from '@kubernetes/client-node/dist/config_types.js';

/**
 * A cluster of a kubeconfig: where the apiserver is and how to trust it (client-node's
 * `Cluster`), with its `extensions` (client-node drops them), which exec plugins may be handed.
 */
export type KubeconfigCluster = Cluster & {
  /** `clusters[].cluster.extensions`, by name: each entry's `extension` value. */
  readonly extensions?: Readonly<Record<string, unknown>>;
};

/** A context of a kubeconfig: a cluster, a user and a default namespace (client-node's `Context`, `user` optional). */
export type KubeconfigContext = Omit<Context, 'user'> & { readonly user?: string };

/** `users[].user.exec` of a kubeconfig: a credential plugin (client.authentication.k8s.io). */
export interface KubeconfigExecConfig {
  command: string;
  apiVersion?: string;
  args?: string[];
  env?: { name: string; value: string }[];
  interactiveMode?: string;
  provideClusterInfo?: boolean;
  installHint?: string;
  [field: string]: unknown;
}

/** `users[].user.auth-provider` of a kubeconfig (oidc, azure, gcp, or one with a `tokenFile`). */
export interface KubeconfigAuthProvider {
  name: string;
  config?: Record<string, string>;
}

/**
 * A user of a kubeconfig: client-node's `User`, with its untyped `exec` and `authProvider`
 * typed, and what client-node lacks: `tokenFile` (it reads `token-file` once, relative to the
 * working directory; kop resolves it against the kubeconfig's directory and re-reads it as it
 * rotates) and the impersonation fields besides `as` (client-node's `impersonateUser`).
 */
export type KubeconfigUser = Omit<User, 'exec' | 'authProvider'> & {
  readonly exec?: KubeconfigExecConfig;
  readonly authProvider?: KubeconfigAuthProvider;
  /** `tokenFile` (or client-node's `token-file`): a bearer token file, re-read as it rotates. */
  tokenFile?: string;
  /** `as-uid`: the UID to impersonate. */
  impersonateUid?: string;
  /** `as-groups`: the groups to impersonate. */
  impersonateGroups?: string[];
  /** `as-user-extra`: extra fields of the impersonated user, each key with its values. */
  impersonateUserExtra?: Record<string, string[]>;
};

/** A parsed kubeconfig. */
export interface Kubeconfig {
  clusters: KubeconfigCluster[];
  users: KubeconfigUser[];
  contexts: KubeconfigContext[];
  currentContext: string;
}

/**
 * YAML 1.2's core schema with merge keys, as client-go's YAML reader accepts them: timestamps
 * stay strings (js-yaml's default schema would make them Dates), as they do for client-go.
 */
const KUBECONFIG_YAML = CORE_SCHEMA.extend({
  implicit: [
    new Type('tag:yaml.org,2002:merge', { kind: 'scalar', resolve: (data: unknown) => data === '<<' || data === null }),
  ],
});

/**
 * Parses kubeconfig text (YAML or JSON) with client-node's entry parsing. Relative file paths
 * (certificate authority, client certificate and key, token file) are resolved against
 * `baseDir`, the kubeconfig's directory, as kubectl does. Throws an Error naming the first
 * malformed entry.
 */
export function parseKubeconfig(text: string, baseDir?: string): Kubeconfig {
  let document: unknown;
  try {
    document = parseYaml(text, { schema: KUBECONFIG_YAML });
  } catch (error) {
    // The YAML parser quotes the lines around the problem, and a kubeconfig holds tokens and
    // keys: say where it is and what is wrong, never what is written there.
    if (error instanceof YAMLException) {
      const at = error.mark;
      // The reason names what is wrong; a name it quotes (an alias, a tag) is left out too.
      const reason = error.reason.replace(/"[^"]*"|<[^>]*>/g, '…');
      // eslint-disable-next-line preserve-caught-error -- the cause would quote the kubeconfig's secrets
      throw new Error(`invalid YAML${at ? ` at line ${at.line + 1}, column ${at.column + 1}` : ''} (${reason})`);
    }
    // eslint-disable-next-line preserve-caught-error -- the cause would quote the kubeconfig's secrets
    throw new Error('invalid YAML');
  }
  if (document === undefined || document === null) return { clusters: [], users: [], contexts: [], currentContext: '' };
  if (!isRecord(document)) throw new Error('a kubeconfig must be a mapping');
  const path = <T extends string | undefined | null>(file: T): T | string =>
    file && baseDir && !isAbsolute(file) ? join(baseDir, file) : file;

  const rawClusters = entries(document.clusters, 'clusters');
  const clusters: KubeconfigCluster[] = newClusters(rawClusters).map((cluster, i) => {
    const extensions = clusterExtensions(rawClusters[i]!.cluster, i);
    return { ...cluster, caFile: path(cluster.caFile), ...(extensions ? { extensions } : {}) };
  });

  // client-node would read `token-file` here, once and relative to the working directory: take
  // the token file out of its input and keep it as a path.
  const rawUsers = entries(document.users, 'users');
  const tokenFiles = rawUsers.map((element) => {
    const user = element.user;
    if (!isRecord(user)) return undefined;
    const { tokenFile, 'token-file': dashed, ...rest } = user;
    element.user = rest;
    return optionalString(tokenFile ?? dashed);
  });
  const users: KubeconfigUser[] = newUsers(rawUsers).map((user, i) => {
    const tokenFile = tokenFiles[i];
    const raw = rawUsers[i]!.user as Record<string, unknown>;
    const exec = user.exec as KubeconfigExecConfig | undefined;
    return {
      ...user,
      certFile: path(user.certFile),
      keyFile: path(user.keyFile),
      ...(tokenFile ? { tokenFile: path(tokenFile) } : {}),
      // As client-go's loader does: a command with a path separator is a path, and a relative
      // one is relative to the kubeconfig that names it; a bare name is looked up in PATH.
      ...(exec && typeof exec.command === 'string' && exec.command.includes(sep)
        ? { exec: { ...exec, command: path(exec.command) } }
        : {}),
      ...impersonation(raw, i),
    };
  });

  const contexts: KubeconfigContext[] = newContexts(entries(document.contexts, 'contexts'));
  return { clusters, users, contexts, currentContext: optionalString(document['current-context']) ?? '' };
}

/** The impersonation fields of a raw user entry besides `as`, checked for their shapes. */
function impersonation(
  raw: Record<string, unknown>,
  i: number,
): Pick<KubeconfigUser, 'impersonateUid' | 'impersonateGroups' | 'impersonateUserExtra'> {
  const where = `users[${i}].user`;
  const result: Pick<KubeconfigUser, 'impersonateUid' | 'impersonateGroups' | 'impersonateUserExtra'> = {};
  const uid = optionalString(raw['as-uid']);
  if (uid) result.impersonateUid = uid;
  const groups = raw['as-groups'];
  if (groups !== undefined && groups !== null) {
    if (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string'))
      throw new Error(`${where}.as-groups must be a list of strings`);
    if (groups.length > 0) result.impersonateGroups = [...(groups as string[])];
  }
  const extra = raw['as-user-extra'];
  if (extra !== undefined && extra !== null) {
    if (!isRecord(extra)) throw new Error(`${where}.as-user-extra must be a mapping of keys to lists of strings`);
    const checked: Record<string, string[]> = {};
    for (const [key, values] of Object.entries(extra)) {
      if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
        throw new Error(`${where}.as-user-extra.${key} must be a list of strings`);
      }
      checked[key] = [...(values as string[])];
    }
    if (Object.keys(checked).length > 0) result.impersonateUserExtra = checked;
  }
  return result;
}

/** `extensions` of a raw cluster entry (a list of `{ name, extension }`), by name. */
function clusterExtensions(cluster: unknown, i: number): Record<string, unknown> | undefined {
  if (!isRecord(cluster) || cluster.extensions === undefined || cluster.extensions === null) return undefined;
  if (!Array.isArray(cluster.extensions)) throw new Error(`clusters[${i}].cluster.extensions must be a list`);
  const byName: Record<string, unknown> = {};
  cluster.extensions.forEach((entry: unknown, j) => {
    if (!isRecord(entry) || typeof entry.name !== 'string')
      throw new Error(`clusters[${i}].cluster.extensions[${j}] needs a name`);
    byName[entry.name] = entry.extension;
  });
  return byName;
}

/** Reads and parses a kubeconfig file, resolving its relative paths against its directory. */
export function readKubeconfigFile(file: string): Kubeconfig {
  return parseKubeconfig(readFileSync(file, 'utf8'), dirname(file));
}

/** A section's entries, each checked to be a mapping (client-node would fail on `null.name`). */
function entries(list: unknown, section: string): Record<string, unknown>[] {
  if (!Array.isArray(list)) return [];
  return list.map((element: unknown, i) => {
    if (!isRecord(element)) throw new Error(`${section}[${i}] is not a mapping`);
    return { ...element };
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
}
