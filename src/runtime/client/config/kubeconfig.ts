import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { load as loadYaml } from 'js-yaml';

// kop reads kubeconfig files itself instead of through @kubernetes/client-node's KubeConfig:
// importing that class loads the whole generated client-node API (about 65 MB of resident
// memory in every operator), while most configurations need nothing of it. client-node is
// loaded only for the credentials it implements (exec plugins, auth providers; see Transport).
// The field names below are client-node's, so those entries can be handed to it unchanged.

/** A cluster of a kubeconfig: where the apiserver is and how to trust it. */
export interface KubeconfigCluster {
  name: string;
  /** Apiserver URL without a trailing slash. */
  server: string;
  /** `certificate-authority-data`: base64 PEM. */
  caData?: string;
  /** `certificate-authority`: PEM file (absolute once loaded from a file). */
  caFile?: string;
  /** `insecure-skip-tls-verify`. */
  skipTLSVerify: boolean;
  /** `tls-server-name`: the name the server certificate is checked against. */
  tlsServerName?: string;
  /** `proxy-url` (refused by kop's transport). */
  proxyUrl?: string;
}

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

/** A user of a kubeconfig: the credentials. */
export interface KubeconfigUser {
  name: string;
  /** `client-certificate-data`: base64 PEM. */
  certData?: string;
  /** `client-certificate`: PEM file. */
  certFile?: string;
  /** `client-key-data`: base64 PEM. */
  keyData?: string;
  /** `client-key`: PEM file. */
  keyFile?: string;
  /** `token`: a bearer token. */
  token?: string;
  /** `tokenFile` (or client-node's `token-file`): a bearer token re-read as it rotates. */
  tokenFile?: string;
  username?: string;
  password?: string;
  /** `as`: the user to impersonate. */
  impersonateUser?: string;
  exec?: KubeconfigExecConfig;
  authProvider?: KubeconfigAuthProvider;
}

/** A context of a kubeconfig: a cluster, a user and a default namespace. */
export interface KubeconfigContext {
  name: string;
  cluster: string;
  user?: string;
  namespace?: string;
}

/** A parsed kubeconfig. */
export interface Kubeconfig {
  clusters: KubeconfigCluster[];
  users: KubeconfigUser[];
  contexts: KubeconfigContext[];
  currentContext: string;
}

type Raw = Record<string, unknown>;

/**
 * Parses kubeconfig text (YAML or JSON). Relative file paths (certificate authority, client
 * certificate and key, token file) are resolved against `baseDir`, the kubeconfig's directory,
 * as kubectl does. Throws an Error naming the first malformed entry.
 */
export function parseKubeconfig(text: string, baseDir?: string): Kubeconfig {
  const document = loadYaml(text);
  if (document === undefined || document === null) return { clusters: [], users: [], contexts: [], currentContext: '' };
  if (!isRecord(document)) throw new Error('a kubeconfig must be a mapping');
  const path = (file: unknown): string | undefined => {
    const value = optionalString(file);
    return value && baseDir && !isAbsolute(value) ? join(baseDir, value) : value;
  };
  const clusters = entries(document.clusters, 'clusters', 'cluster', (name, raw, at) => {
    const server = optionalString(raw.server);
    if (!server) throw new Error(`${at}.cluster.server is missing`);
    return {
      name,
      server: server.replace(/\/$/, ''),
      caData: optionalString(raw['certificate-authority-data']),
      caFile: path(raw['certificate-authority']),
      skipTLSVerify: raw['insecure-skip-tls-verify'] === true,
      tlsServerName: optionalString(raw['tls-server-name']),
      proxyUrl: optionalString(raw['proxy-url']),
    };
  });
  const users = entries(document.users, 'users', 'user', (name, raw) => ({
    name,
    certData: optionalString(raw['client-certificate-data']),
    certFile: path(raw['client-certificate']),
    keyData: optionalString(raw['client-key-data']),
    keyFile: path(raw['client-key']),
    token: optionalString(raw.token),
    tokenFile: path(raw.tokenFile ?? raw['token-file']),
    username: optionalString(raw.username),
    password: optionalString(raw.password),
    impersonateUser: optionalString(raw.as),
    exec: isRecord(raw.exec) ? (raw.exec as KubeconfigExecConfig) : undefined,
    authProvider: isRecord(raw['auth-provider']) ? (raw['auth-provider'] as unknown as KubeconfigAuthProvider) : undefined,
  }), { optionalBody: true });
  const contexts = entries(document.contexts, 'contexts', 'context', (name, raw, at) => {
    const cluster = optionalString(raw.cluster);
    if (!cluster) throw new Error(`${at}.context.cluster is missing`);
    return { name, cluster, user: optionalString(raw.user), namespace: optionalString(raw.namespace) };
  });
  return { clusters, users, contexts, currentContext: optionalString(document['current-context']) ?? '' };
}

/** Reads and parses a kubeconfig file, resolving its relative paths against its directory. */
export function readKubeconfigFile(file: string): Kubeconfig {
  return parseKubeconfig(readFileSync(file, 'utf8'), dirname(file));
}

function entries<T>(
  list: unknown,
  section: string,
  body: string,
  make: (name: string, raw: Raw, at: string) => T,
  options: { optionalBody?: boolean } = {},
): T[] {
  if (!Array.isArray(list)) return [];
  return list.map((element: unknown, i) => {
    const at = `${section}[${i}]`;
    if (!isRecord(element)) throw new Error(`${at} is not a mapping`);
    const name = optionalString(element.name);
    if (!name) throw new Error(`${at}.name is missing`);
    const raw = element[body];
    if (!isRecord(raw)) {
      if (options.optionalBody && (raw === undefined || raw === null)) return make(name, {}, at);
      throw new Error(`${at}.${body} is missing`);
    }
    return make(name, raw, at);
  });
}

function isRecord(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
}
