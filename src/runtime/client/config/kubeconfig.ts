import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
// Deep import on purpose (memory): client-node's index, and its dist/config.js (KubeConfig),
// load its whole generated API, about 65 MB of resident memory in every operator. Its entry
// parsing and checks (what KubeConfig.loadFromString runs) live in this small module, which
// costs about 2 MB. Exec plugins and token-file auth providers are likewise imported from
// their own modules, on first use (see Transport); only oidc/azure/gcp load the index.
import { newClusters, newContexts, newUsers } from '@kubernetes/client-node/dist/config_types.js';
import type { Cluster, Context, User } from '@kubernetes/client-node/dist/config_types.js';

/** A cluster of a kubeconfig: where the apiserver is and how to trust it (client-node's `Cluster`). */
export type KubeconfigCluster = Cluster;

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
 * typed, and `tokenFile`, which client-node lacks (it reads `token-file` once, relative to the
 * working directory; kop resolves it against the kubeconfig's directory and re-reads it as it
 * rotates).
 */
export type KubeconfigUser = Omit<User, 'exec' | 'authProvider'> & {
  readonly exec?: KubeconfigExecConfig;
  readonly authProvider?: KubeconfigAuthProvider;
  /** `tokenFile` (or client-node's `token-file`): a bearer token file, re-read as it rotates. */
  tokenFile?: string;
};

/** A parsed kubeconfig. */
export interface Kubeconfig {
  clusters: KubeconfigCluster[];
  users: KubeconfigUser[];
  contexts: KubeconfigContext[];
  currentContext: string;
}

/**
 * Parses kubeconfig text (YAML or JSON) with client-node's entry parsing. Relative file paths
 * (certificate authority, client certificate and key, token file) are resolved against
 * `baseDir`, the kubeconfig's directory, as kubectl does. Throws an Error naming the first
 * malformed entry.
 */
export function parseKubeconfig(text: string, baseDir?: string): Kubeconfig {
  // YAML 1.2 with merge keys, as client-go's YAML reader accepts them.
  const document: unknown = parseYaml(text, { merge: true });
  if (document === undefined || document === null) return { clusters: [], users: [], contexts: [], currentContext: '' };
  if (!isRecord(document)) throw new Error('a kubeconfig must be a mapping');
  const path = <T extends string | undefined | null>(file: T): T | string =>
    file && baseDir && !isAbsolute(file) ? join(baseDir, file) : file;

  const clusters = newClusters(entries(document.clusters, 'clusters'));
  for (const cluster of clusters) cluster.caFile = path(cluster.caFile);

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
    return {
      ...user,
      certFile: path(user.certFile),
      keyFile: path(user.keyFile),
      ...(tokenFile ? { tokenFile: path(tokenFile) } : {}),
    };
  });

  const contexts: KubeconfigContext[] = newContexts(entries(document.contexts, 'contexts'));
  return { clusters, users, contexts, currentContext: optionalString(document['current-context']) ?? '' };
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
