import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { Authenticator } from '@kubernetes/client-node/dist/auth.js';
import { InvalidConfigurationError, type ClientConfig } from '../config/client-config.js';
import type { KubeconfigCluster, KubeconfigUser } from '../config/kubeconfig.js';

/** Connection pool settings of a {@link Transport}. */
export interface TransportOptions {
  /**
   * Cap on connections open at once, watches included (each HTTP/1.1 watch holds one for
   * minutes, so a low cap lets watches starve requests). Default: no cap, like client-go;
   * the QPS limiter bounds the request rate.
   */
  maxSockets?: number;
  /** Idle sockets kept for reuse. Default 16. */
  maxFreeSockets?: number;
  /**
   * How long credentials from exec plugins, token files and auth providers are reused before
   * the file is read again or client-node is asked again (it re-runs a plugin only when its
   * credential expired). A 401 answer refreshes them at once. Default 30000.
   */
  credentialRefreshMs?: number;
}

/**
 * The connection side of a RestClient: one keep-alive agent with the cluster's TLS settings,
 * and the authentication headers for each request. TLS is set up once (client-node's
 * applyToHTTPSOptions builds a new agent, so a new TLS handshake, on every call); certificates,
 * tokens and basic auth are set here, and token files are re-read as they rotate (client-node's
 * FileAuth re-reads only every 60 s and keeps the trailing newline). Exec plugins and
 * auth providers go through client-node's authenticators, imported on their first use: ExecAuth
 * and FileAuth from their own small modules, and client-node's whole KubeConfig (about 65 MB of
 * memory) only for the auth providers that need it (oidc, azure, gcp).
 */
export class Transport {
  /** The connection pool of every request and watch. */
  agent: http.Agent;
  readonly isHttps: boolean;
  private readonly staticHeaders: Record<string, string>;
  /** The user's exec plugin or auth provider, for client-node; undefined when there is none. */
  private readonly pluginUser: KubeconfigUser | undefined;
  /** Which client-node authenticator serves the plugin user (see the class comment). */
  private readonly pluginAuthKind: 'exec' | 'file' | 'kubeconfig';
  private pluginAuth: Promise<PluginAuthenticator> | undefined;
  /** A token file re-read as it rotates (in-cluster service account, `tokenFile`). */
  private readonly tokenFile: string | undefined;
  private readonly tls: https.AgentOptions;
  private readonly agentOptions: TransportOptions;
  private execCert: string | undefined;
  private cachedDynamic: { headers: Record<string, string>; until: number } | undefined;
  private readonly dynamicRefreshMs: number;

  constructor(config: ClientConfig, options: TransportOptions = {}) {
    const { cluster, user } = config;
    if (!cluster) throw new InvalidConfigurationError('the configuration has no current cluster');
    if (cluster.proxyUrl) {
      throw new InvalidConfigurationError(`cluster "${cluster.name}" sets proxy-url, which kop's client does not support`);
    }
    this.isHttps = config.server.startsWith('https:');
    this.agentOptions = options;
    this.dynamicRefreshMs = options.credentialRefreshMs ?? 30_000;
    this.tls = this.isHttps ? tlsOptions(cluster, user) : {};
    this.agent = this.makeAgent({});
    this.staticHeaders = {};
    if (user?.token) this.staticHeaders.authorization = `Bearer ${user.token}`;
    if (user?.username) {
      this.staticHeaders.authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
    }
    if (user?.impersonateUser) this.staticHeaders['impersonate-user'] = user.impersonateUser;
    this.pluginUser = user && (user.exec || user.authProvider) ? credentialsOnly(user) : undefined;
    this.pluginAuthKind = pluginAuthKind(this.pluginUser);
    // As in client-go, a token given inline wins over a token file.
    this.tokenFile = !this.pluginUser && !user?.token && !user?.username ? user?.tokenFile : undefined;
  }

  /** True when credentials can change while the process runs (exec plugins, token files, auth providers). */
  get hasDynamicCredentials(): boolean {
    return this.pluginUser !== undefined || this.tokenFile !== undefined;
  }

  /** Forgets cached dynamic credentials, e.g. after a 401, so the next request fetches fresh ones. */
  invalidateCredentials(): void {
    this.cachedDynamic = undefined;
    // ExecAuth and FileAuth keep a credential until it expires: a fresh one asks again.
    if (this.pluginAuthKind !== 'kubeconfig') this.pluginAuth = undefined;
  }

  /** Authentication headers for the next request; runs exec plugins / token refresh when needed. */
  async authHeaders(): Promise<Record<string, string>> {
    if (!this.hasDynamicCredentials) return this.staticHeaders;
    // client-node re-runs an exec plugin on every call when its credential has no expiry
    // (client-go keeps such a credential until a 401), so reuse what we got for a while.
    const cached = this.cachedDynamic;
    if (cached && performance.now() < cached.until) return cached.headers;
    if (this.tokenFile) {
      const headers = { ...this.staticHeaders, authorization: `Bearer ${readTokenFile(this.tokenFile)}` };
      this.cachedDynamic = { headers, until: performance.now() + this.dynamicRefreshMs };
      return headers;
    }
    const opts: https.RequestOptions & { headers: Record<string, string> } = { headers: {} };
    await (await this.pluginAuthenticator())(opts);
    if (opts.cert && opts.key) {
      // An exec plugin handed out a client certificate: rebuild the pool when it rotates.
      const cert = String(opts.cert);
      if (cert !== this.execCert) {
        this.execCert = cert;
        const old = this.agent;
        this.agent = this.makeAgent({ cert: opts.cert, key: opts.key });
        // In-flight requests and watches finish on the old pool; only its idle connections go now.
        closeIdle(old);
      }
    }
    const headers: Record<string, string> = { ...this.staticHeaders };
    // Trimmed: FileAuth passes a token file's trailing newline on, which no header may carry.
    for (const [k, v] of Object.entries(opts.headers)) headers[k.toLowerCase()] = String(v).trim();
    this.cachedDynamic = { headers, until: performance.now() + this.dynamicRefreshMs };
    return headers;
  }

  /** client-node's authenticator for the plugin user, imported on first use. */
  private pluginAuthenticator(): Promise<PluginAuthenticator> {
    const user = this.pluginUser!;
    const fromAuthenticator = (authenticator: Authenticator): PluginAuthenticator => (opts) => authenticator.applyAuthentication(user, opts);
    switch (this.pluginAuthKind) {
      case 'exec':
        this.pluginAuth ??= import('@kubernetes/client-node/dist/exec_auth.js').then(({ ExecAuth }) => fromAuthenticator(new ExecAuth()));
        break;
      case 'file':
        this.pluginAuth ??= import('@kubernetes/client-node/dist/file_auth.js').then(({ FileAuth }) => fromAuthenticator(new FileAuth()));
        break;
      case 'kubeconfig':
        this.pluginAuth ??= import('@kubernetes/client-node').then(({ KubeConfig }) => {
          const kc = new KubeConfig();
          kc.loadFromClusterAndUser({ name: 'auth-only', server: 'https://auth-only.invalid', skipTLSVerify: false }, user);
          return (opts) => kc.applyToHTTPSOptions(opts);
        });
        break;
    }
    return this.pluginAuth!;
  }

  /** Closes every pooled connection. */
  close(): void {
    this.agent.destroy();
  }

  private makeAgent(extra: https.AgentOptions): http.Agent {
    const common = {
      keepAlive: true,
      maxSockets: this.agentOptions.maxSockets ?? Infinity,
      maxFreeSockets: this.agentOptions.maxFreeSockets ?? 16,
      scheduling: 'lifo' as const,
    };
    if (!this.isHttps) return new http.Agent(common);
    // One TLS context for the pool, made here once: without it every new connection parses the
    // CA, certificate and key again, and every request's pool key embeds their whole text.
    const { ca, cert, key, ...connectOptions } = { ...this.tls, ...extra };
    let secureContext: tls.SecureContext;
    try {
      secureContext = tls.createSecureContext({ ca, cert, key });
    } catch (cause) {
      throw new InvalidConfigurationError(`invalid TLS material: ${(cause as Error).message}`, { cause });
    }
    return new https.Agent({ ...common, ...connectOptions, secureContext });
  }
}

/** Applies a plugin's credentials (headers, client certificate) to request options. */
type PluginAuthenticator = (opts: https.RequestOptions & { headers: Record<string, string> }) => Promise<void>;

/** Auth providers that client-node's KubeConfig serves with its own authenticators. */
const CLOUD_PROVIDERS = new Set(['azure', 'gcp', 'oidc']);

/** The authenticator client-node's KubeConfig would pick for the user, in its order (exec, then token file). */
function pluginAuthKind(user: KubeconfigUser | undefined): 'exec' | 'file' | 'kubeconfig' {
  const provider = user?.authProvider;
  const cloud = provider !== undefined && CLOUD_PROVIDERS.has(provider.name);
  if (user?.exec || provider?.name === 'exec' || (provider?.config?.exec && !cloud)) return 'exec';
  if (provider?.config?.tokenFile && !cloud) return 'file';
  return 'kubeconfig';
}

function closeIdle(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

function fileOrData(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file) return readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return undefined;
}

function readTokenFile(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (cause) {
    throw new InvalidConfigurationError(`cannot read token file ${file}: ${(cause as Error).message}`, { cause });
  }
}

function tlsOptions(cluster: KubeconfigCluster, user: KubeconfigUser | undefined): https.AgentOptions {
  const tls: https.AgentOptions = {};
  try {
    const ca = fileOrData(cluster.caFile, cluster.caData);
    if (ca) tls.ca = ca;
    if (user) {
      const cert = fileOrData(user.certFile, user.certData);
      const key = fileOrData(user.keyFile, user.keyData);
      if (cert) tls.cert = cert;
      if (key) tls.key = key;
    }
  } catch (cause) {
    throw new InvalidConfigurationError(`cannot read TLS material: ${(cause as Error).message}`, { cause });
  }
  if (cluster.skipTLSVerify) tls.rejectUnauthorized = false;
  if (cluster.tlsServerName) tls.servername = cluster.tlsServerName;
  return tls;
}

/** The user with only its plugin credentials, so applying it through client-node reads no files and dials nothing. */
function credentialsOnly(user: KubeconfigUser): KubeconfigUser {
  const { certFile: _cf, keyFile: _kf, certData: _cd, keyData: _kd, token: _t, tokenFile: _tf, username: _u, password: _p, ...rest } = user;
  return rest;
}
