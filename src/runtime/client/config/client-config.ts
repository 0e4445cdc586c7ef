import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { isIPv6 } from 'node:net';
import { parseKubeconfig, readKubeconfigFile } from './kubeconfig.js';
import type { Kubeconfig, KubeconfigCluster, KubeconfigContext, KubeconfigUser } from './kubeconfig.js';

/** Where a ClientConfig came from, in the order they are tried. */
export type ConfigSource =
  'explicit-kubeconfig' | 'explicit-server' | 'KUBECONFIG' | 'home-kubeconfig' | 'in-cluster' | 'kubeconfig-string';

/**
 * Everything needed to talk to one apiserver: its URL and the cluster and user of one
 * kubeconfig context (certificates, tokens, token files, exec plugins, auth providers).
 */
export interface ClientConfig {
  /** Base URL of the apiserver, without a trailing slash. */
  server: string;
  /** The selected context's name. */
  context: string;
  /** The context's cluster (its `server` overridden when an explicit server was given). */
  cluster: KubeconfigCluster;
  /** The context's user; a user without credentials (`{ name: '' }`) when the context names none. */
  user: KubeconfigUser;
  /** Which rule of the loading order produced this config. */
  source: ConfigSource;
  /** The context's default namespace (or the service account's namespace in-cluster), if any. */
  namespace?: string;
}

/** Inputs of {@link loadClientConfig}; each field mirrors a flag or a piece of the environment. */
export interface LoadClientConfigOptions {
  /** Explicit kubeconfig path (the `--kubeconfig` flag). Wins over everything else. */
  kubeconfig?: string;
  /** Explicit apiserver URL (the `--server`/`--master` flag); overrides the kubeconfig's server. */
  server?: string;
  /** Context to use instead of the kubeconfig's current-context. */
  context?: string;
  /** Environment to read KUBECONFIG and KUBERNETES_SERVICE_HOST/PORT from; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Home directory holding `.kube/config`; defaults to os.homedir(). */
  homeDir?: string;
  /** Directory with the mounted service-account token, ca.crt and namespace (in-cluster). */
  serviceAccountDir?: string;
}

/** The standard service-account mount inside a pod. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** No rule of the loading order found a configuration. Never silently replaced by localhost:8080. */
export class NoConfigurationError extends Error {
  constructor(readonly tried: string[]) {
    super(
      'no Kubernetes client configuration found; tried:\n' +
        tried.map((t) => `  - ${t}`).join('\n') +
        '\nPass a kubeconfig path or server URL, set KUBECONFIG, create ~/.kube/config, or run inside a pod with a service account.',
    );
    this.name = 'NoConfigurationError';
  }
}

/** The configuration was found but is unusable (missing context, bad file). */
export class InvalidConfigurationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidConfigurationError';
  }
}

/**
 * Loads client configuration in controller-runtime's `GetConfig` order: explicit kubeconfig
 * path and/or server URL (the `--kubeconfig` flag), then the files listed in KUBECONFIG (merged,
 * first file wins per name), then the in-cluster service account, then ~/.kube/config. Throws
 * NoConfigurationError when nothing applies.
 */
export function loadClientConfig(options: LoadClientConfigOptions = {}): ClientConfig {
  const env = options.env ?? process.env;
  const tried: string[] = [];

  if (options.kubeconfig) {
    if (!existsSync(options.kubeconfig)) {
      throw new InvalidConfigurationError(`kubeconfig ${options.kubeconfig} does not exist`);
    }
    return finish(loadFiles([options.kubeconfig]), 'explicit-kubeconfig', options);
  }
  if (options.server) {
    const kc: Kubeconfig = {
      clusters: [{ name: 'explicit', server: options.server, skipTLSVerify: false }],
      users: [{ name: 'anonymous' }],
      contexts: [{ name: 'explicit', cluster: 'explicit', user: 'anonymous' }],
      currentContext: 'explicit',
    };
    return finish(kc, 'explicit-server', { ...options, server: undefined });
  }
  tried.push('explicit kubeconfig or server: none given');

  const fromEnv = env.KUBECONFIG;
  if (fromEnv) {
    const files = fromEnv.split(delimiter).filter((f) => f !== '');
    const present = files.filter((f) => existsSync(f));
    if (present.length > 0) return finish(loadFiles(present), 'KUBECONFIG', options);
    tried.push(`KUBECONFIG=${fromEnv}: no such file`);
  } else {
    tried.push('KUBECONFIG: not set');
  }

  const saDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (host && port && existsSync(join(saDir, 'token'))) {
    return finish(inClusterKubeconfig(host, port, saDir), 'in-cluster', options);
  }
  tried.push(
    host && port
      ? `in-cluster: ${join(saDir, 'token')} does not exist`
      : 'in-cluster: KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT not set',
  );
  const home = options.homeDir ?? safeHomedir();
  if (home) {
    const file = join(home, '.kube', 'config');
    if (existsSync(file)) return finish(loadFiles([file]), 'home-kubeconfig', options);
    tried.push(`${file}: no such file`);
  } else {
    tried.push('~/.kube/config: no home directory');
  }

  throw new NoConfigurationError(tried);
}

/** Builds a ClientConfig from kubeconfig YAML text, e.g. the one a test control plane hands out. */
export function clientConfigFromString(kubeconfigYaml: string, context?: string): ClientConfig {
  let kc: Kubeconfig;
  try {
    kc = parseKubeconfig(kubeconfigYaml);
  } catch (cause) {
    throw new InvalidConfigurationError(`cannot parse kubeconfig: ${(cause as Error).message}`, { cause });
  }
  return finish(kc, 'kubeconfig-string', { context });
}

function safeHomedir(): string | undefined {
  try {
    return homedir() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Merges kubeconfig files the way kubectl does: the first file to define a cluster, user or
 * context name wins, and the first file that sets current-context decides it (client-node's
 * mergeConfig throws on duplicate names instead).
 */
function loadFiles(files: string[]): Kubeconfig {
  const clusters = new Map<string, KubeconfigCluster>();
  const users = new Map<string, KubeconfigUser>();
  const contexts = new Map<string, KubeconfigContext>();
  let currentContext = '';
  for (const file of files) {
    let kc: Kubeconfig;
    try {
      kc = readKubeconfigFile(file);
    } catch (cause) {
      throw new InvalidConfigurationError(`cannot load kubeconfig ${file}: ${(cause as Error).message}`, { cause });
    }
    for (const c of kc.clusters) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of kc.users) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of kc.contexts) if (!contexts.has(c.name)) contexts.set(c.name, c);
    if (!currentContext && kc.currentContext) currentContext = kc.currentContext;
  }
  return {
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext,
  };
}

function inClusterKubeconfig(host: string, port: string, saDir: string): Kubeconfig {
  const serverHost = isIPv6(host) ? `[${host}]` : host;
  const namespaceFile = join(saDir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : undefined;
  return {
    clusters: [
      {
        name: 'in-cluster',
        server: `https://${serverHost}:${port}`,
        caFile: join(saDir, 'ca.crt'),
        skipTLSVerify: false,
      },
    ],
    // A token file is re-read as it changes: the kubelet rotates the projected token.
    users: [{ name: 'in-cluster', tokenFile: join(saDir, 'token') }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', namespace }],
    currentContext: 'in-cluster',
  };
}

let insecureWarned = false;
/** Once per process: every request to such a cluster can be read or changed by anyone on the path. */
function warnInsecureOnce(cluster: string): void {
  if (insecureWarned) return;
  insecureWarned = true;
  process.emitWarning(
    `cluster "${cluster}" is used with insecure-skip-tls-verify: the apiserver's certificate is not checked`,
    { code: 'KOP_INSECURE_TLS' },
  );
}

function finish(kc: Kubeconfig, source: ConfigSource, options: { context?: string; server?: string }): ClientConfig {
  if (options.context && !kc.contexts.some((c) => c.name === options.context)) {
    throw new InvalidConfigurationError(`context "${options.context}" not found in the ${source} configuration`);
  }
  const contextName = options.context || kc.currentContext;
  if (!contextName) throw new InvalidConfigurationError(`the ${source} configuration has no current-context`);
  const context = kc.contexts.find((c) => c.name === contextName);
  if (!context) throw new InvalidConfigurationError(`current-context "${contextName}" is not defined (${source})`);
  let cluster = kc.clusters.find((c) => c.name === context.cluster);
  if (!cluster)
    throw new InvalidConfigurationError(
      `context "${contextName}" refers to unknown cluster "${context.cluster}" (${source})`,
    );
  // An explicit server overrides the kubeconfig's, keeping its credentials (client-go's ClusterDefaults override).
  if (options.server) cluster = { ...cluster, server: options.server };
  if (!cluster.server) throw new InvalidConfigurationError(`cluster "${cluster.name}" has no server URL (${source})`);
  if (cluster.skipTLSVerify && (cluster.caData || cluster.caFile)) {
    // client-go refuses the combination too: which of the two did the user mean?
    throw new InvalidConfigurationError(
      `cluster "${cluster.name}" sets insecure-skip-tls-verify together with a certificate authority (${source}); remove one of them`,
    );
  }
  if (cluster.skipTLSVerify) warnInsecureOnce(cluster.name);
  // A context naming an undefined user, or none, talks to the server without credentials (as kubectl does).
  const user = kc.users.find((u) => u.name === context.user) ?? { name: context.user ?? '' };
  return {
    server: cluster.server.replace(/\/+$/, ''),
    context: contextName,
    cluster,
    user,
    source,
    namespace: context.namespace,
  };
}
