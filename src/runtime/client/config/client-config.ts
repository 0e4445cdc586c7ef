import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { isIPv6 } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, Context, User } from '@kubernetes/client-node';

/** Where a ClientConfig came from, in the order they are tried. */
export type ConfigSource = 'explicit-kubeconfig' | 'explicit-server' | 'KUBECONFIG' | 'home-kubeconfig' | 'in-cluster' | 'kubeconfig-string';

/**
 * Everything needed to talk to one apiserver: its URL and the credentials of one kubeconfig
 * context (client-node's KubeConfig does the authentication: certificates, tokens, exec plugins).
 */
export interface ClientConfig {
  /** Base URL of the apiserver, without a trailing slash. */
  server: string;
  /** The parsed configuration, current context selected. */
  kubeConfig: KubeConfig;
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
 * Loads client configuration in this order: explicit kubeconfig path and/or server URL, then
 * the files listed in KUBECONFIG (merged, first file wins per name), then ~/.kube/config,
 * then the in-cluster service account. Throws NoConfigurationError when nothing applies.
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
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser({ name: 'explicit', server: options.server, skipTLSVerify: false }, { name: 'anonymous' });
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

  const home = options.homeDir ?? safeHomedir();
  if (home) {
    const file = join(home, '.kube', 'config');
    if (existsSync(file)) return finish(loadFiles([file]), 'home-kubeconfig', options);
    tried.push(`${file}: no such file`);
  } else {
    tried.push('~/.kube/config: no home directory');
  }

  const saDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (host && port && existsSync(join(saDir, 'token'))) {
    return finish(inClusterKubeConfig(host, port, saDir), 'in-cluster', options);
  }
  tried.push(
    host && port
      ? `in-cluster: ${join(saDir, 'token')} does not exist`
      : 'in-cluster: KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT not set',
  );
  throw new NoConfigurationError(tried);
}

/** Builds a ClientConfig from kubeconfig YAML text, e.g. the one a test control plane hands out. */
export function clientConfigFromString(kubeconfigYaml: string, context?: string): ClientConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromString(kubeconfigYaml);
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
 * context name wins, and the first file that sets current-context decides it. client-node's
 * own mergeConfig throws on duplicate names instead.
 */
function loadFiles(files: string[]): KubeConfig {
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let currentContext = '';
  for (const file of files) {
    const kc = new KubeConfig();
    try {
      kc.loadFromFile(file);
    } catch (cause) {
      throw new InvalidConfigurationError(`cannot load kubeconfig ${file}: ${(cause as Error).message}`, { cause });
    }
    for (const c of kc.clusters ?? []) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of kc.users ?? []) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of kc.contexts ?? []) if (!contexts.has(c.name)) contexts.set(c.name, c);
    if (!currentContext && kc.currentContext) currentContext = kc.currentContext;
  }
  const merged = new KubeConfig();
  merged.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext,
  });
  return merged;
}

function inClusterKubeConfig(host: string, port: string, saDir: string): KubeConfig {
  const serverHost = isIPv6(host) ? `[${host}]` : host;
  const kc = new KubeConfig();
  const namespaceFile = join(saDir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : undefined;
  kc.loadFromOptions({
    clusters: [{ name: 'in-cluster', server: `https://${serverHost}:${port}`, caFile: join(saDir, 'ca.crt'), skipTLSVerify: false }],
    // client-node's tokenFile provider re-reads the projected token, which the kubelet rotates.
    users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile: join(saDir, 'token') } } }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', namespace }],
    currentContext: 'in-cluster',
  });
  return kc;
}

function finish(kc: KubeConfig, source: ConfigSource, options: { context?: string; server?: string }): ClientConfig {
  if (options.context) {
    if (!kc.getContextObject(options.context)) {
      throw new InvalidConfigurationError(`context "${options.context}" not found in the ${source} configuration`);
    }
    kc.setCurrentContext(options.context);
  }
  const contextName = kc.getCurrentContext();
  if (!contextName) throw new InvalidConfigurationError(`the ${source} configuration has no current-context`);
  const context = kc.getContextObject(contextName);
  if (!context) throw new InvalidConfigurationError(`current-context "${contextName}" is not defined (${source})`);
  let cluster = kc.getCluster(context.cluster);
  if (!cluster) throw new InvalidConfigurationError(`context "${contextName}" refers to unknown cluster "${context.cluster}" (${source})`);
  if (options.server) {
    // An explicit server overrides the kubeconfig's, keeping its credentials (client-go's ClusterDefaults override).
    const overridden: Cluster = { ...cluster, server: options.server };
    kc.clusters = kc.clusters.map((c) => (c.name === cluster!.name ? overridden : c));
    cluster = overridden;
  }
  if (!cluster.server) throw new InvalidConfigurationError(`cluster "${cluster.name}" has no server URL (${source})`);
  return {
    server: cluster.server.replace(/\/+$/, ''),
    kubeConfig: kc,
    source,
    namespace: context.namespace,
  };
}
