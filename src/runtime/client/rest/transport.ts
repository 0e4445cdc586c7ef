import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { Authenticator } from '@kubernetes/client-node/dist/auth.js';
import { InvalidConfigurationError, type ClientConfig } from '../config/client-config.js';
import { ExecCredentialProvider, ExecPluginError, type ExecCredential } from '../config/exec-credential.js';
import type { KubeconfigCluster, KubeconfigExecConfig, KubeconfigUser } from '../config/kubeconfig.js';

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
   * How long credentials from token files and auth providers are reused before the file is
   * read again or client-node is asked again. A 401 answer refreshes them at once. Default
   * 30000. Exec plugins do not use it: their credential is kept until its own expiry, or,
   * without one, until a 401.
   */
  credentialRefreshMs?: number;
  /** How long an exec credential plugin may run before it is killed and its run fails; default 60 s. */
  execPluginTimeoutMs?: number;
}

/**
 * The connection side of a RestClient: one keep-alive agent with the cluster's TLS settings,
 * and the authentication headers for each request. TLS is set up once (client-node's
 * applyToHTTPSOptions builds a new agent, so a new TLS handshake, on every call); certificates,
 * tokens, basic auth and impersonation (`as`, `as-uid`, `as-groups`, `as-user-extra`) are set
 * here, and token files are re-read as they rotate (client-node's FileAuth re-reads only every
 * 60 s and keeps the trailing newline). Exec plugins are run by an {@link ExecCredentialProvider}
 * (client-go's semantics; client-node's ExecAuth writes the plugin's env into process.env).
 * Auth providers go through client-node's authenticators, imported on their first use: FileAuth
 * for a token-file provider from its own small module, and client-node's whole KubeConfig
 * (about 65 MB of memory) only for the providers that need it (oidc, azure, gcp).
 */
export class Transport {
  /** The connection pool of every request and watch. */
  agent: http.Agent;
  readonly isHttps: boolean;
  private readonly staticHeaders: AuthHeaders;
  /** The user's exec plugin or auth provider; undefined when there is none. */
  private readonly pluginUser: KubeconfigUser | undefined;
  /** Which authenticator serves the plugin user (see the class comment). */
  private readonly pluginAuthKind: 'exec' | 'file' | 'kubeconfig';
  private pluginAuth: Promise<PluginAuthenticator> | undefined;
  /** Runs the user's exec plugin; set when pluginAuthKind is 'exec'. */
  private readonly execProvider: ExecCredentialProvider | undefined;
  /** The headers made from the exec plugin's last credential. */
  private execHeaders: { credential: ExecCredential; headers: AuthHeaders } | undefined;
  /** A token file re-read as it rotates (in-cluster service account, `tokenFile`). */
  private readonly tokenFile: string | undefined;
  private readonly tls: https.AgentOptions;
  private readonly agentOptions: TransportOptions;
  /** The client certificate a plugin or auth provider handed out, which the pool uses. */
  private pluginCert: string | undefined;
  private cachedDynamic: { headers: AuthHeaders; until: number } | undefined;
  private readonly dynamicRefreshMs: number;

  constructor(config: ClientConfig, options: TransportOptions = {}) {
    const { cluster, user } = config;
    if (!cluster) throw new InvalidConfigurationError('the configuration has no current cluster');
    if (cluster.proxyUrl) {
      throw new InvalidConfigurationError(
        `cluster "${cluster.name}" sets proxy-url, which kop's client does not support`,
      );
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
    if (user) Object.assign(this.staticHeaders, impersonationHeaders(user));
    // As in client-go, credentials written in the kubeconfig (token, basic auth) win: a plugin
    // or auth provider is then never run.
    const inline = this.staticHeaders.authorization !== undefined;
    this.pluginUser = user && !inline && (user.exec || user.authProvider) ? credentialsOnly(user) : undefined;
    this.pluginAuthKind = pluginAuthKind(this.pluginUser);
    if (this.pluginUser && this.pluginAuthKind === 'exec') {
      this.execProvider = new ExecCredentialProvider({
        user: this.pluginUser.name,
        exec: execConfigOf(this.pluginUser),
        cluster,
        timeoutMs: options.execPluginTimeoutMs,
      });
    }
    // As in client-go, a token given inline wins over a token file.
    this.tokenFile = !this.pluginUser && !user?.token && !user?.username ? user?.tokenFile : undefined;
  }

  /** True when credentials can change while the process runs (exec plugins, token files, auth providers). */
  get hasDynamicCredentials(): boolean {
    return this.pluginUser !== undefined || this.tokenFile !== undefined;
  }

  /**
   * The authentication and impersonation headers when they never change (a certificate, an
   * inline token, basic auth): a caller may use them without awaiting {@link authHeaders}.
   * Undefined when credentials are dynamic.
   */
  get staticAuthHeaders(): AuthHeaders | undefined {
    return this.hasDynamicCredentials ? undefined : this.staticHeaders;
  }

  /** Forgets cached dynamic credentials, e.g. after a 401, so the next request fetches fresh ones. */
  invalidateCredentials(): void {
    this.cachedDynamic = undefined;
    this.execProvider?.invalidate();
    // FileAuth keeps a credential until it expires: a fresh one reads the file again.
    if (this.pluginAuthKind === 'file') this.pluginAuth = undefined;
  }

  /**
   * Authentication and impersonation headers for the next request; runs the exec plugin or
   * re-reads a token file when needed. A header given as a list (`impersonate-group`, each
   * `impersonate-extra-*`) is sent once per value.
   */
  async authHeaders(): Promise<AuthHeaders> {
    const fixed = this.staticAuthHeaders;
    if (fixed) return fixed;
    if (this.execProvider) return this.execAuthHeaders(this.execProvider);
    // Token files and auth providers carry no expiry kop can read: reuse what we got for a while.
    const cached = this.cachedDynamic;
    if (cached && performance.now() < cached.until) return cached.headers;
    if (this.tokenFile) {
      const headers = { ...this.staticHeaders, authorization: `Bearer ${readTokenFile(this.tokenFile)}` };
      this.cachedDynamic = { headers, until: performance.now() + this.dynamicRefreshMs };
      return headers;
    }
    const opts: https.RequestOptions & { headers: Record<string, string> } = { headers: {} };
    await (
      await this.pluginAuthenticator()
    )(opts);
    // An auth provider may hand out a client certificate.
    if (opts.cert && opts.key) this.useClientCertificate(String(opts.cert), opts.key);
    const headers: AuthHeaders = { ...this.staticHeaders };
    // Trimmed: FileAuth passes a token file's trailing newline on, which no header may carry.
    for (const [k, v] of Object.entries(opts.headers)) headers[k.toLowerCase()] = String(v).trim();
    this.cachedDynamic = { headers, until: performance.now() + this.dynamicRefreshMs };
    return headers;
  }

  /** Headers from the exec plugin's credential (cached by the provider); a new client certificate rotates the pool. */
  private async execAuthHeaders(provider: ExecCredentialProvider): Promise<AuthHeaders> {
    const credential = await provider.credential();
    const last = this.execHeaders;
    if (last && last.credential === credential) return last.headers;
    const { clientCertificateData: cert, clientKeyData: key, token } = credential;
    if (cert && key) {
      try {
        this.useClientCertificate(cert, key);
      } catch (cause) {
        // Run the plugin again next time rather than failing on the same output forever.
        provider.invalidate();
        throw new ExecPluginError(
          `exec plugin of user "${this.pluginUser?.name ?? ''}" printed a client certificate and key that cannot be used: ${(cause as Error).message}`,
          {
            cause,
          },
        );
      }
    }
    const headers: AuthHeaders = { ...this.staticHeaders };
    if (token) headers.authorization = `Bearer ${token}`;
    this.execHeaders = { credential, headers };
    return headers;
  }

  /**
   * Switches the connection pool to a client certificate handed out by a plugin, when it differs
   * from the one in use. Throws, keeping the old pool, when the certificate or key is unusable.
   */
  private useClientCertificate(cert: string, key: https.AgentOptions['key']): void {
    if (cert === this.pluginCert) return;
    const agent = this.makeAgent({ cert, key });
    this.pluginCert = cert;
    const old = this.agent;
    this.agent = agent;
    // In-flight requests and watches finish on the old pool; only its idle connections go now.
    closeIdle(old);
  }

  /** client-node's authenticator for an auth-provider user, imported on first use. */
  private pluginAuthenticator(): Promise<PluginAuthenticator> {
    const user = this.pluginUser!;
    const fromAuthenticator =
      (authenticator: Authenticator): PluginAuthenticator =>
      (opts) =>
        authenticator.applyAuthentication(user, opts);
    switch (this.pluginAuthKind) {
      case 'exec':
        throw new Error('exec plugins are run by ExecCredentialProvider');
      case 'file':
        this.pluginAuth ??= import('@kubernetes/client-node/dist/file_auth.js').then(({ FileAuth }) =>
          fromAuthenticator(new FileAuth()),
        );
        break;
      case 'kubeconfig':
        this.pluginAuth ??= import('@kubernetes/client-node').then(({ KubeConfig }) => {
          const kc = new KubeConfig();
          kc.loadFromClusterAndUser(
            { name: 'auth-only', server: 'https://auth-only.invalid', skipTLSVerify: false },
            user,
          );
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

/**
 * Headers a Transport adds to each request. A list is sent as one header line per value
 * (Node's http does so for array values), as the apiserver wants for `Impersonate-Group`.
 */
export type AuthHeaders = Record<string, string | string[]>;

/** Applies a plugin's credentials (headers, client certificate) to request options. */
type PluginAuthenticator = (opts: https.RequestOptions & { headers: Record<string, string> }) => Promise<void>;

/** Auth providers that client-node's KubeConfig serves with its own authenticators. */
const CLOUD_PROVIDERS = new Set(['azure', 'gcp', 'oidc']);

/**
 * Who serves the plugin user, in client-node's order: an exec plugin (`user.exec`, or, a
 * client-node convention client-go lacks, an auth provider other than oidc/azure/gcp whose
 * config holds an `exec` entry: both run by kop's ExecCredentialProvider), then a token-file
 * auth provider, then client-node's KubeConfig.
 */
function pluginAuthKind(user: KubeconfigUser | undefined): 'exec' | 'file' | 'kubeconfig' {
  const provider = user?.authProvider;
  const cloud = provider !== undefined && CLOUD_PROVIDERS.has(provider.name);
  if (user?.exec || provider?.name === 'exec' || (provider?.config?.exec && !cloud)) return 'exec';
  if (provider?.config?.tokenFile && !cloud) return 'file';
  return 'kubeconfig';
}

/** The exec entry of a user that pluginAuthKind sent to 'exec'. */
function execConfigOf(user: KubeconfigUser): KubeconfigExecConfig {
  if (user.exec) return user.exec;
  const fromProvider: unknown = user.authProvider?.config?.exec;
  if (typeof fromProvider === 'object' && fromProvider !== null && !Array.isArray(fromProvider))
    return fromProvider as KubeconfigExecConfig;
  throw new InvalidConfigurationError(
    `user "${user.name}": auth-provider "${user.authProvider?.name ?? ''}" has no exec entry in its config; configure the credential plugin as users[].user.exec`,
  );
}

/** Percent-encodes what may not appear in a header name (and '%' itself), byte by byte, as client-go does for extra keys. */
function headerKeyEscape(key: string): string {
  let escaped = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const char = String.fromCharCode(byte);
    escaped +=
      byte < 0x80 && HEADER_TOKEN_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return escaped;
}

/** An RFC 7230 token character, '%' excluded (the apiserver unescapes the key). */
const HEADER_TOKEN_CHAR = /^[A-Za-z0-9!#$&'*+.^_`|~-]$/;

/** The impersonation headers of a kubeconfig user (`as`, `as-uid`, `as-groups`, `as-user-extra`). */
function impersonationHeaders(user: KubeconfigUser): AuthHeaders {
  const headers: AuthHeaders = {};
  const groups = user.impersonateGroups ?? [];
  const extra = Object.entries(user.impersonateUserExtra ?? {}).filter(([, values]) => values.length > 0);
  if (!user.impersonateUser) {
    // The apiserver refuses these without a user to impersonate; say so before any request.
    if (user.impersonateUid || groups.length > 0 || extra.length > 0) {
      throw new InvalidConfigurationError(
        `user "${user.name}" sets as-uid, as-groups or as-user-extra without as; name the user to impersonate with as`,
      );
    }
    return headers;
  }
  headers['impersonate-user'] = user.impersonateUser;
  if (user.impersonateUid) headers['impersonate-uid'] = user.impersonateUid;
  if (groups.length > 0) headers['impersonate-group'] = [...groups];
  for (const [key, values] of extra) headers[`impersonate-extra-${headerKeyEscape(key)}`] = [...values];
  return headers;
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
  const {
    certFile: _cf,
    keyFile: _kf,
    certData: _cd,
    keyData: _kd,
    token: _t,
    tokenFile: _tf,
    username: _u,
    password: _p,
    ...rest
  } = user;
  return rest;
}
