import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { ROOT_CONTEXT, SpanKind, context, propagation } from '@opentelemetry/api';
import { inSpan, recordingSpan } from '../util/tracing.js';
import { CertificateWatcher, type KeyPair } from './certificate-watcher.js';
import { statusReply, type WebhookHandler, type WebhookReply } from './webhook-handler.js';

/** Options of the webhook server (`ManagerOptions.webhookServer`). */
export interface WebhookServerOptions {
  /** Interface to listen on; default '' = all interfaces. */
  host?: string;
  /** Port; default 9443; 0 picks a free one (tests). */
  port?: number;
  /** Directory of the serving certificate and key (`--webhook-cert-path`); default `/tmp/k8s-webhook-server/serving-certs`. */
  certDir?: string;
  /** Certificate file name in certDir (`--webhook-cert-name`); default `tls.crt`. */
  certName?: string;
  /** Key file name in certDir (`--webhook-cert-key`); default `tls.key`. */
  keyName?: string;
  /** Largest request body accepted; larger ones get 413. Default 7 MiB (an object and its old version at the apiserver's 3 MiB limit each, and the review around them). */
  maxRequestBytes?: number;
  /** How often the certificate files are read again besides watching them; default 10 s. */
  certPollIntervalMs?: number;
}

/** Hooks a server reports each path's requests to (the manager's Prometheus metrics implement them). */
export interface WebhookMetrics {
  webhook(path: string): WebhookPathMetrics;
}

/** Metrics of one webhook path. */
export interface WebhookPathMetrics {
  /** A request started (+1) or ended (-1). */
  inFlight(delta: number): void;
  /** A request was answered with HTTP `code` after `seconds`. */
  served(code: number, seconds: number): void;
}

/** controller-runtime's default certificate directory, where a mounted Secret usually lands. */
export const DEFAULT_CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';
const DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024;
/** The apiserver's default webhook timeout, used when a request names none. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** Webhook timeouts are at most 30 s. */
const MAX_TIMEOUT_MS = 30_000;

interface Route {
  handler: WebhookHandler;
  metrics: WebhookPathMetrics | undefined;
  logger: Logger;
}

class BodyTooLargeError extends Error {}

/**
 * The HTTPS server behind admission and conversion webhooks: routes POSTs by exact path to
 * handlers, bounds bodies, parses JSON, and writes JSON answers. TLS 1.2 or newer only; the
 * certificate is reloaded when its files change. `stop` is graceful: no new connections,
 * requests in flight finish (until the deadline), idle keep-alive connections are closed.
 */
export class WebhookServer {
  private readonly routes = new Map<string, Route>();
  private readonly logger: Logger;
  private readonly metrics: WebhookMetrics | undefined;
  /** The signals of the requests in flight, aborted when the shutdown deadline passes. */
  private readonly requestControllers = new Set<AbortController>();
  private server: https.Server | undefined;
  /** Open connections, and how many requests each is answering: a stop closes the quiet ones. */
  private readonly connections = new Map<tls.TLSSocket, number>();
  private watcher: CertificateWatcher | undefined;
  private inFlight = 0;
  private closing = false;
  private stopped: Promise<void> | undefined;
  /** `host:port` once listening. */
  address: string | undefined;

  constructor(
    private readonly options: WebhookServerOptions = {},
    extras: { logger?: Logger; metrics?: WebhookMetrics } = {},
  ) {
    this.logger = extras.logger ?? silentLogger;
    this.metrics = extras.metrics;
  }

  /** Serves `handler` on `path` (exact match); throws when the path is taken. */
  register(path: string, handler: WebhookHandler): void {
    if (!path.startsWith('/')) throw new Error(`webhook path "${path}" must start with "/"`);
    if (this.routes.has(path))
      throw new Error(`webhook path ${path} is registered already; give each webhook its own path`);
    this.routes.set(path, {
      handler,
      metrics: this.metrics?.webhook(path),
      logger: this.logger.child({ webhook: path }),
    });
  }

  /** The registered paths. */
  get paths(): string[] {
    return [...this.routes.keys()];
  }

  /** Reads the certificate, listens, and resolves with `host:port` bound. */
  async start(): Promise<string> {
    if (this.server) throw new Error('the webhook server is started already');
    const options = this.options;
    this.watcher = new CertificateWatcher({
      certDir: options.certDir || DEFAULT_CERT_DIR,
      certName: options.certName || 'tls.crt',
      keyName: options.keyName || 'tls.key',
      pollIntervalMs: options.certPollIntervalMs,
      logger: this.logger,
      onChange: (pair) => this.server?.setSecureContext(secureContextOptions(pair)),
      missingHint:
        'mount them there (cert-manager Secret) or set webhookServer.certDir, certName, keyName (--webhook-cert-path, --webhook-cert-name, --webhook-cert-key); ' +
        "to run without the webhooks, set ENABLE_WEBHOOKS=false (a kop project's main.ts reads it), or run `kop dev`, which serves them with a certificate of its own",
    });
    const pair = await this.watcher.load();
    const server = https.createServer(secureContextOptions(pair), (req, res) => void this.serve(req, res));
    this.server = server;
    // The apiserver keeps idle connections for 90 s and does not retry a POST whose connection the
    // server closed just as it was reused: close idle ones only well after it would have.
    server.keepAliveTimeout = 120_000;
    server.headersTimeout = 30_000;
    server.requestTimeout = 60_000;
    server.on('tlsClientError', (error) => this.logger.debug('TLS handshake failed', { error: error.message }));
    server.on('secureConnection', (socket: tls.TLSSocket) => {
      this.connections.set(socket, 0);
      socket.once('close', () => this.connections.delete(socket));
    });
    this.address = await new Promise<string>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 9443, options.host || undefined, () => {
        server.off('error', reject);
        const bound = server.address() as AddressInfo;
        resolve(`${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`);
      });
    });
    server.on('error', (error) => this.logger.error('webhook server error', { error: error.message }));
    this.watcher.start();
    this.logger.info('serving webhooks', { address: this.address, paths: this.paths, cert: this.watcher.certPath });
    return this.address;
  }

  /** Reads the certificate files now and swaps in a changed valid pair (the watcher does this on its own too). */
  async reloadCertificate(): Promise<void> {
    await this.watcher?.check();
  }

  /** Resolves when a TLS handshake with the server succeeds (the readiness check `webhook`). */
  checkServing(timeoutMs = 2_000): Promise<void> {
    const bound = this.server?.address() as AddressInfo | null | undefined;
    if (!bound || this.closing) return Promise.reject(new Error('webhook server is not serving'));
    const host = bound.address === '0.0.0.0' ? '127.0.0.1' : bound.address === '::' ? '::1' : bound.address;
    return new Promise((resolve, reject) => {
      // Whether the certificate is trusted is the apiserver's business (caBundle); this checks the server answers TLS.
      const socket = tls.connect({
        host,
        port: bound.port,
        rejectUnauthorized: false,
        servername: undefined,
        timeout: timeoutMs,
      });
      socket.once('secureConnect', () => {
        socket.end();
        resolve();
      });
      socket.once('timeout', () => {
        socket.destroy();
        reject(new Error(`webhook server: no TLS handshake within ${timeoutMs} ms`));
      });
      socket.once('error', (error: Error) => reject(new Error(`webhook server: TLS dial failed: ${error.message}`)));
    });
  }

  /**
   * Stops: no new connections, idle ones closed, requests in flight answered within `timeoutMs`;
   * after that their signals abort and their connections close.
   */
  stop(timeoutMs = 30_000): Promise<void> {
    this.stopped ??= this.shutdown(timeoutMs);
    return this.stopped;
  }

  private async shutdown(timeoutMs: number): Promise<void> {
    this.watcher?.stop();
    const server = this.server;
    if (!server) return;
    this.closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Node's closeIdleConnections leaves connections that never carried a request (a client
    // such as the apiserver may dial more than it uses), and a request finishing after the
    // sweep leaves its connection open: close every quiet connection now and while draining.
    const closeQuiet = () => {
      for (const [socket, requests] of this.connections) if (requests === 0) socket.destroy();
    };
    closeQuiet();
    const sweep = setInterval(closeQuiet, 50);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    if ((await Promise.race([closed, deadline])) === 'timeout') {
      this.logger.warn('webhook requests still in flight at the shutdown deadline; closing their connections', {
        inFlight: this.inFlight,
      });
      for (const controller of this.requestControllers) controller.abort(new Error('webhook server stopped'));
      server.closeAllConnections();
      await closed;
    }
    clearInterval(sweep);
    clearTimeout(timer);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const socket = req.socket as tls.TLSSocket;
    this.connections.set(socket, (this.connections.get(socket) ?? 0) + 1);
    res.once('close', () => {
      if (this.connections.has(socket)) this.connections.set(socket, Math.max(0, this.connections.get(socket)! - 1));
    });
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'https://webhook.local');
    const route = this.routes.get(url.pathname);
    if (!route) {
      this.write(
        res,
        statusReply(404, 'NotFound', `no webhook is served on ${url.pathname}; served paths: ${this.paths.join(', ')}`),
      );
      return;
    }
    route.metrics?.inFlight(1);
    this.inFlight++;
    let reply: WebhookReply;
    try {
      // A server span, the child of the apiserver's when it sent a traceparent (APIServerTracing on).
      reply = await context.with(propagation.extract(ROOT_CONTEXT, req.headers), () =>
        inSpan(`${req.method ?? 'POST'} ${url.pathname}`, { kind: SpanKind.SERVER }, async (span) => {
          span?.setAttributes({ 'http.request.method': req.method ?? '', 'url.path': url.pathname });
          const answer = await this.answer(req, url, route);
          span?.setAttribute('http.response.status_code', answer.status);
          return answer;
        }),
      );
    } catch (error) {
      // Handlers answer user errors themselves; this is a bug of kop's, still never a crash.
      route.logger.error('webhook handler failed', { error: (error as Error)?.message ?? String(error) });
      reply = statusReply(500, 'InternalError', 'internal error of the webhook server');
    }
    this.write(res, reply);
    this.inFlight--;
    route.metrics?.inFlight(-1);
    route.metrics?.served(reply.status, (performance.now() - started) / 1000);
  }

  private async answer(req: IncomingMessage, url: URL, route: Route): Promise<WebhookReply> {
    if (req.method !== 'POST') {
      req.resume();
      return statusReply(405, 'MethodNotAllowed', `webhooks take POST, not ${req.method ?? ''}`);
    }
    const contentType = req.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      req.resume();
      return statusReply(400, 'BadRequest', `content type ${JSON.stringify(contentType)} is not application/json`);
    }
    const max = this.options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    let text: string;
    try {
      text = await readBody(req, max);
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        return statusReply(413, 'RequestEntityTooLarge', `request body is larger than ${max} bytes`);
      // The client went away mid-body: there is no one to answer.
      return statusReply(400, 'BadRequest', `cannot read the request body: ${(error as Error).message}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      return statusReply(400, 'BadRequest', `request body is not JSON: ${(error as Error).message}`);
    }
    // One controller per request, its timer cleared when the answer is ready: AbortSignal.timeout
    // would keep every request's timer (and AbortSignal.any its links) alive for the full timeout,
    // over a hundred thousand at a busy server's rate.
    const controller = new AbortController();
    const timeoutMs = timeoutOf(url);
    const timer = setTimeout(
      () => controller.abort(new DOMException(`the request's timeout of ${timeoutMs} ms passed`, 'TimeoutError')),
      timeoutMs,
    );
    this.requestControllers.add(controller);
    recordingSpan()?.setAttributes(reviewAttributes(body));
    try {
      return await route.handler({ body, url, signal: controller.signal, logger: route.logger });
    } finally {
      clearTimeout(timer);
      this.requestControllers.delete(controller);
    }
  }

  private write(res: ServerResponse, reply: WebhookReply): void {
    if (res.destroyed || res.headersSent) return;
    const text = JSON.stringify(reply.body);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    };
    // While stopping (and after refusing a body it did not read), the connection is not reused.
    if (this.closing || reply.status === 413) headers.connection = 'close';
    res.writeHead(reply.status, headers).end(text);
  }
}

function secureContextOptions(pair: KeyPair): tls.SecureContextOptions {
  return { cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' };
}

/** The body as text, refusing more than `max` bytes (from Content-Length at once, else while reading). */
function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      reject(new BodyTooLargeError());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData);
        req.pause();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('request body ended early'));
    });
  });
}

/** The request's `?timeout=` (a Go duration such as `10s` the apiserver adds), bounded to 30 s. */
export function timeoutOf(url: URL): number {
  const text = url.searchParams.get('timeout');
  if (!text) return DEFAULT_TIMEOUT_MS;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const pattern = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (const match of text.matchAll(pattern)) {
    total += Number(match[1]) * units[match[2]!]!;
    end = (match.index ?? 0) + match[0].length;
  }
  if (end !== text.length || total <= 0) return DEFAULT_TIMEOUT_MS;
  return Math.min(total, MAX_TIMEOUT_MS);
}

/** What a trace shows of an AdmissionReview or ConversionReview: its kind, uid, operation and object. */
function reviewAttributes(body: unknown): Record<string, string> {
  const review = body as {
    kind?: unknown;
    request?: {
      uid?: unknown;
      operation?: unknown;
      namespace?: unknown;
      name?: unknown;
      kind?: { kind?: unknown };
      desiredAPIVersion?: unknown;
    };
  } | null;
  const attributes: Record<string, string> = {};
  const put = (key: string, value: unknown): void => {
    if (typeof value === 'string' && value !== '') attributes[key] = value;
  };
  put('kop.webhook.review', review?.kind);
  put('kop.webhook.uid', review?.request?.uid);
  put('kop.webhook.operation', review?.request?.operation);
  put('kop.k8s.kind', review?.request?.kind?.kind);
  put('k8s.namespace.name', review?.request?.namespace);
  put('kop.k8s.object.name', review?.request?.name);
  put('kop.webhook.desired_api_version', review?.request?.desiredAPIVersion);
  return attributes;
}
