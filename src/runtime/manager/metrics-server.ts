import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type tls from 'node:tls';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { CertificateWatcher, type KeyPair } from '../webhook/certificate-watcher.js';
import type { MetricsAccessFilter } from './metrics-auth.js';
import { createSelfSignedCertificate } from './self-signed-certificate.js';

/** Where the metrics server's certificate comes from (`ManagerOptions.metricsServer`). */
export interface MetricsServerOptions {
  /**
   * Folder of the serving certificate and key (`--metrics-cert-path`), read again when they change
   * (cert-manager rotates them). Unset: a self-signed certificate made in memory at start.
   */
  certDir?: string;
  /** Certificate file in certDir (`--metrics-cert-name`); default `tls.crt`. */
  certName?: string;
  /** Key file in certDir (`--metrics-cert-key`); default `tls.key`. */
  keyName?: string;
  /** How often the certificate files are read again besides watching them; default 10 s. */
  certPollIntervalMs?: number;
}

/** What {@link MetricsServer} serves. */
export interface MetricsServerConfig extends MetricsServerOptions {
  /** HTTPS with the filter (true), or plain HTTP open to anyone who reaches the port (false). */
  secure: boolean;
  /** Decides who may read; required when secure. */
  filter?: MetricsAccessFilter;
  /** The exposition: content type and text. */
  render: () => Promise<{ contentType: string; body: string }>;
  /**
   * Debug endpoints answering JSON, by path (`/debug/cache`), behind the same filter as /metrics:
   * a request is authorised for `get` on its own path, so reading /metrics does not grant them.
   */
  debugEndpoints?: Readonly<Record<string, () => unknown>>;
  logger?: Logger;
}

/**
 * The /metrics endpoint, as controller-runtime's metrics server serves it: by default HTTPS
 * (TLS 1.2 or newer) with every request authenticated and authorised by the apiserver
 * ({@link MetricsAccessFilter}); plain HTTP when `secure` is false. Debug endpoints (JSON) are
 * served the same way. Other paths get 404, other methods than GET and HEAD 405.
 */
export class MetricsServer {
  private server: http.Server | https.Server | undefined;
  private watcher: CertificateWatcher | undefined;
  private readonly logger: Logger;
  /** `host:port` once listening. */
  address: string | undefined;

  constructor(private readonly config: MetricsServerConfig) {
    if (config.secure && !config.filter) throw new TypeError('a secure metrics server needs an access filter');
    this.logger = config.logger ?? silentLogger;
  }

  /** `https` or `http`. */
  get scheme(): 'https' | 'http' {
    return this.config.secure ? 'https' : 'http';
  }

  /** Where the certificate was read from, or `self-signed`; undefined for plain HTTP. */
  get certificate(): string | undefined {
    if (!this.config.secure) return undefined;
    return this.watcher?.certPath ?? 'self-signed';
  }

  /** Listens on `address` (port 0 picks one) and resolves with `host:port` bound. */
  async listen(address: { host: string | undefined; port: number }): Promise<string> {
    if (this.server) throw new Error('the metrics server is started already');
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.serve(req, res);
    let server: http.Server | https.Server;
    if (this.config.secure) {
      const pair = await this.loadCertificate();
      server = https.createServer(secureContextOptions(pair), handler);
      server.on('tlsClientError', (error: Error) =>
        this.logger.debug('metrics: TLS handshake failed', { error: error.message }),
      );
    } else {
      server = http.createServer(handler);
    }
    // Scrapers keep their connection between scrapes; shutdown closes every connection.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 30_000;
    server.requestTimeout = 60_000;
    this.server = server;
    this.address = await new Promise<string>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, address.host, () => {
        server.off('error', reject);
        const bound = server.address() as AddressInfo;
        resolve(`${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`);
      });
    });
    server.on('error', (error) => this.logger.error('metrics server error', { error: error.message }));
    this.watcher?.start();
    return this.address;
  }

  /** Reads the certificate files now and swaps in a changed valid pair (the watcher does this on its own too). */
  async reloadCertificate(): Promise<void> {
    await this.watcher?.check();
  }

  /** Stops listening and closes every connection (a scrape in progress is cut: it is worth nothing at shutdown). */
  close(): Promise<void> {
    this.watcher?.stop();
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async loadCertificate(): Promise<KeyPair> {
    if (!this.config.certDir) return createSelfSignedCertificate();
    this.watcher = new CertificateWatcher({
      certDir: this.config.certDir,
      certName: this.config.certName || 'tls.crt',
      keyName: this.config.keyName || 'tls.key',
      pollIntervalMs: this.config.certPollIntervalMs,
      logger: this.logger,
      server: 'metrics server',
      missingHint:
        'mount them there (cert-manager Secret), set metricsServer.certDir, certName, keyName (--metrics-cert-path, --metrics-cert-name, --metrics-cert-key), or leave certDir unset for a self-signed certificate',
      onChange: (pair) => (this.server as https.Server | undefined)?.setSecureContext(secureContextOptions(pair)),
    });
    return this.watcher.load();
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://metrics.local');
    const debug = Object.hasOwn(this.config.debugEndpoints ?? {}, url.pathname)
      ? this.config.debugEndpoints![url.pathname]
      : undefined;
    if (url.pathname !== '/metrics' && !debug) return this.reply(res, 404, 'not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return this.reply(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
    try {
      if (this.config.filter) {
        const decision = await this.config.filter.check(req.headers.authorization, req.method, url.pathname);
        if (decision.status !== 200) return this.reply(res, decision.status, `${decision.message}\n`);
      }
      const { contentType, body } = debug
        ? { contentType: 'application/json', body: `${JSON.stringify(debug(), null, 2)}\n` }
        : await this.config.render();
      this.reply(res, 200, body, { 'content-type': contentType });
    } catch (error) {
      this.logger.error('metrics: cannot answer', { error: (error as Error).message });
      this.reply(res, 500, 'internal error\n');
    }
  }

  private reply(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    if (res.destroyed || res.headersSent) return;
    res
      .writeHead(status, {
        'content-type': 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
        ...headers,
      })
      .end(res.req.method === 'HEAD' ? undefined : body);
  }
}

function secureContextOptions(pair: KeyPair): tls.SecureContextOptions {
  return { cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' };
}
