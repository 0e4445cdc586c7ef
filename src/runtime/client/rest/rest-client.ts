import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import {
  ApiError,
  RequestTimeoutError,
  TransportError,
  isStatusObject,
  statusFromResponse,
} from '../errors/api-error.js';
import { loadClientConfig, type ClientConfig, type LoadClientConfigOptions } from '../config/client-config.js';
import { Transport, type AuthHeaders, type TransportOptions } from './transport.js';
import { Deadlines } from './deadlines.js';
import { startRestCall, type RestCall } from './instrumentation.js';
import { sleep } from '../../util/clock.js';
import { TokenBucket } from '../../util/token-bucket.js';
import type { Status } from '../../../api/index.js';
import { decodeWithoutManagedFields } from './omit-managed-fields.js';

/** HTTP verbs the apiserver understands. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

/** A query parameter value; arrays repeat the key, undefined/null/'' are left out. */
export type QueryValue = string | number | boolean | undefined | null | readonly string[];

/** Query parameters of one request. */
export type Query = Record<string, QueryValue>;

/** Settings shared by every request of a RestClient. */
export interface RestClientOptions extends TransportOptions {
  /**
   * Sustained requests per second allowed by a client-side limiter. Default: no client-side
   * limit, as in controller-runtime, which leaves fairness to the apiserver's API Priority and
   * Fairness; 0, a negative number or Infinity also means no limit.
   */
  qps?: number;
  /** Requests allowed at once above `qps` when a limiter is on. Default twice `qps`, at least 1. */
  burst?: number;
  /**
   * Largest response body read into memory, in bytes; a larger one fails the call with a
   * TransportError instead of exhausting memory. Default 512 MiB (a list of many large objects).
   */
  maxResponseBytes?: number;
  /** Largest single watch event, in bytes. Default 64 MiB (etcd stores objects of at most 1.5 MiB). */
  maxWatchEventBytes?: number;
  /** Default timeout of a call in milliseconds, its retries and their waits included (not applied to watches). Default 60000; 0 for none. */
  timeoutMs?: number;
  /**
   * User-Agent header. Its part before the first '/' is the field manager of writes that name
   * none (`my-operator/1.0` records `my-operator`). Default `kop-runtime/unknown (<os>/<arch>) node/<version>`.
   */
  userAgent?: string;
  /**
   * Times a request is sent again, as client-go does: after the Retry-After of a 429 (server
   * throttling; 1 s when it names none) or of a 5xx that carries one, and, for GETs only, 1 s
   * after the connection was reset (an apiserver restart closing kept-alive connections). Default 3.
   */
  maxThrottleRetries?: number;
  /**
   * Called with each warning the apiserver attaches to a response (deprecated APIs, unknown
   * fields under `fieldValidation: 'Warn'`, ...). Default: warnings are dropped; the client a
   * Manager (or Cluster) loads logs each distinct one once.
   */
  onWarning?: (warning: string, request: { method: HttpMethod; path: string }) => void;
}

/** Per-call settings common to every verb. */
export interface CallOptions {
  /** Aborts the request (and rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Overrides the client's default timeout for this call (retries included); 0 for none. */
  timeoutMs?: number;
}

/** One HTTP request to the apiserver. */
export interface RestRequest extends CallOptions {
  method: HttpMethod;
  /** Absolute API path, e.g. `/api/v1/namespaces/default/pods`. */
  path: string;
  query?: Query;
  /** Sent as JSON unless it is already a string or Buffer. */
  body?: unknown;
  /** Content-Type of the body; `application/json` by default (patches set their own). */
  contentType?: string;
  /** Accept header; `application/json` by default. */
  accept?: string;
  /** Extra headers. */
  headers?: Record<string, string>;
  /**
   * The answer is a list whose items' `metadata.managedFields` nobody reads: they are cut from the
   * body before it is parsed (items where the field is not found where the apiserver puts it keep it).
   */
  omitManagedFields?: boolean;
}

/** A watch event as it arrives on the wire, before typing. */
export interface RawWatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/**
 * Low-level client for the Kubernetes API: builds URLs, authenticates, limits its own rate,
 * reuses connections, decodes JSON and turns failures into {@link ApiError}s.
 * Typed, dynamic and discovery clients are built on top of it.
 */
export class RestClient {
  readonly config: ClientConfig;
  private readonly transport: Transport;
  private readonly limiter: TokenBucket | undefined;
  /** The client-side limit in force, or undefined when there is none (the default). */
  readonly rateLimit: { readonly qps: number; readonly burst: number } | undefined;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly maxThrottleRetries: number;
  private readonly maxResponseBytes: number;
  private readonly maxWatchEventBytes: number;
  private readonly onWarning: RestClientOptions['onWarning'];
  private readonly base: URL;
  private readonly basePath: string;
  /** The authentication headers when they never change (certificates, an inline token, basic auth). */
  private readonly staticAuth: AuthHeaders | undefined;
  /** The timeouts of requests in flight, on one timer. */
  private readonly deadlines = new Deadlines();
  /** The server part of every request's options (what `http.request(url)` derives from a URL). */
  private readonly target: Pick<http.RequestOptions, 'protocol' | 'hostname' | 'port' | 'auth'>;

  constructor(config: ClientConfig, options: RestClientOptions = {}) {
    this.config = config;
    this.transport = new Transport(config, options);
    // Whether credentials are dynamic is settled by the config, once.
    this.staticAuth = this.transport.staticAuthHeaders;
    const qps = options.qps ?? 0;
    this.limiter =
      Number.isFinite(qps) && qps > 0
        ? new TokenBucket(qps, options.burst ?? Math.max(1, Math.ceil(qps * 2)))
        : undefined;
    this.rateLimit = this.limiter && { qps: this.limiter.qps, burst: this.limiter.burst };
    this.timeoutMs = options.timeoutMs ?? 60_000;
    // The apiserver names writes without a fieldManager after the part before the first '/'.
    this.userAgent =
      options.userAgent ?? `kop-runtime/unknown (${process.platform}/${process.arch}) node/${process.versions.node}`;
    this.maxThrottleRetries = options.maxThrottleRetries ?? 3;
    this.maxResponseBytes = options.maxResponseBytes ?? 512 * 1024 * 1024;
    this.maxWatchEventBytes = options.maxWatchEventBytes ?? 64 * 1024 * 1024;
    this.onWarning = options.onWarning;
    this.base = new URL(config.server);
    this.basePath = this.base.pathname.replace(/\/+$/, '');
    const { protocol, hostname, port, auth } = urlToHttpOptions(this.base);
    this.target = { protocol, hostname, port, ...(auth ? { auth } : {}) };
  }

  /** Loads configuration with {@link loadClientConfig} and builds a client from it. */
  static load(loadOptions: LoadClientConfigOptions = {}, clientOptions: RestClientOptions = {}): RestClient {
    return new RestClient(loadClientConfig(loadOptions), clientOptions);
  }

  /** Sends a request and decodes the JSON response. Throws ApiError for any non-2xx answer. */
  async request<T>(req: RestRequest): Promise<T> {
    const text = await this.requestText(req);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      // A sign-in page or proxy answer rather than the apiserver's: say which request got it.
      const start = text.length > 200 ? `${text.slice(0, 200)}...` : text;
      throw new TransportError(
        `the server answered with a body that is not JSON (is the server URL the apiserver's?): ${start}`,
        req.method,
        req.path,
        { cause },
      );
    }
  }

  /** Sends a request and returns the response body as text (logs, non-JSON endpoints). */
  async requestText(req: RestRequest): Promise<string> {
    // Metrics and the client span (see instrumentation.ts); undefined when nothing observes.
    const call = startRestCall(this, req.method, req.path, false);
    try {
      const text = await this.sendWithRetries(req, call);
      call?.end(undefined);
      return text;
    } catch (err) {
      call?.end(err);
      throw err;
    }
  }

  private async sendWithRetries(req: RestRequest, call: RestCall | undefined): Promise<string> {
    let refreshed = false;
    // The timeout bounds the whole call, retries and their waits included, as client-go's does.
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const deadline = timeoutMs > 0 ? performance.now() + timeoutMs : Infinity;
    for (let attempt = 0; ; attempt++) {
      const remainingMs = deadline - performance.now();
      try {
        return await this.once(
          deadline === Infinity ? req : { ...req, timeoutMs: Math.max(1, Math.ceil(remainingMs)) },
          call,
        );
      } catch (err) {
        let waitSeconds = attempt < this.maxThrottleRetries ? retryWaitSeconds(err, req) : undefined;
        if (waitSeconds !== undefined && performance.now() + waitSeconds * 1000 >= deadline) waitSeconds = undefined;
        if (waitSeconds !== undefined) {
          call?.retrying(err instanceof ApiError ? err.code : undefined, waitSeconds);
          await sleep(waitSeconds * 1000, req.signal);
          continue;
        }
        if (err instanceof ApiError && err.code === 401 && this.transport.hasDynamicCredentials && !refreshed) {
          // The credential expired or was revoked: fetch a fresh one and try once more.
          refreshed = true;
          this.transport.invalidateCredentials();
          continue;
        }
        throw err;
      }
    }
  }

  /** GET `path` and decode the JSON body. */
  get<T>(path: string, query?: Query, options?: CallOptions): Promise<T> {
    return this.request<T>({ method: 'GET', path, query, ...options });
  }

  /** POST a JSON body to `path`. */
  post<T>(path: string, body: unknown, query?: Query, options?: CallOptions): Promise<T> {
    return this.request<T>({ method: 'POST', path, query, body, ...options });
  }

  /** PUT a JSON body to `path`. */
  put<T>(path: string, body: unknown, query?: Query, options?: CallOptions): Promise<T> {
    return this.request<T>({ method: 'PUT', path, query, body, ...options });
  }

  /** PATCH `path` with a body of the given patch content type. */
  patch<T>(path: string, body: unknown, contentType: string, query?: Query, options?: CallOptions): Promise<T> {
    return this.request<T>({ method: 'PATCH', path, query, body, contentType, ...options });
  }

  /** DELETE `path`, optionally with a DeleteOptions body. */
  delete<T>(path: string, body?: unknown, query?: Query, options?: CallOptions): Promise<T> {
    return this.request<T>({ method: 'DELETE', path, query, body, ...options });
  }

  /**
   * Opens a watch on `path` (adds `watch=true`) and yields its events in order. The iteration
   * ends when the server closes the stream (e.g. `timeoutSeconds` elapsed) or when `signal`
   * aborts; breaking out of a `for await` closes the connection. An ERROR event is thrown as an
   * ApiError: a 410 (`isGone`) means the resourceVersion is too old and the caller must relist.
   */
  async *watch<T>(
    path: string,
    query: Query = {},
    options: { signal?: AbortSignal; accept?: string; omitManagedFields?: boolean } = {},
  ): AsyncGenerator<RawWatchEvent<T>, void, undefined> {
    const signal = options.signal;
    const omit = options.omitManagedFields === true;
    if (signal?.aborted) return;
    const method = 'GET';
    let res: http.IncomingMessage;
    // Counted in the client metrics by its answer; not traced (a watch lives for minutes).
    const call = startRestCall(this, method, path, true);
    try {
      res = await this.open(
        { method, path, query: { ...query, watch: true }, signal, timeoutMs: 0, accept: options.accept },
        call,
      );
    } catch (err) {
      call?.end(err);
      if (signal?.aborted) return;
      throw err;
    }
    call?.end(undefined);
    if ((res.statusCode ?? 0) >= 300) {
      if (res.statusCode === 401) this.transport.invalidateCredentials();
      const body = (await readBody(res, this.maxResponseBytes, method, path)).toString('utf8');
      throw new ApiError(statusFromResponse(res.statusCode ?? 0, body), method, path);
    }
    // Lines are found in the bytes and each is decoded once, on its own: no string of a whole
    // chunk, no joined and split text (UTF-8 never has a newline byte inside a character).
    // Where an event begins in one chunk and ends in another, the parts wait in `pending`.
    const pending: Buffer[] = [];
    let pendingBytes = 0;
    const tooLarge = (): TransportError =>
      new TransportError(
        `a watch event is larger than ${this.maxWatchEventBytes} bytes (maxWatchEventBytes); closing the watch`,
        'WATCH',
        path,
      );
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        let from = 0;
        for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, from)) {
          let line = chunk;
          let start = from;
          let end = newline;
          if (pendingBytes > 0) {
            pending.push(chunk.subarray(from, newline));
            line = Buffer.concat(pending, pendingBytes + newline - from);
            start = 0;
            end = line.length;
            pending.length = 0;
            pendingBytes = 0;
          }
          from = newline + 1;
          if (end - start > this.maxWatchEventBytes) throw tooLarge();
          const event = decodeWatchLine<T>(line, start, end, omit, path);
          if (event) yield event;
        }
        if (from < chunk.length) {
          // A line that never ends (a hostile or broken server) must not grow without bound.
          pendingBytes += chunk.length - from;
          if (pendingBytes > this.maxWatchEventBytes) throw tooLarge();
          pending.push(from === 0 ? chunk : chunk.subarray(from));
        }
      }
      if (pendingBytes > 0) {
        const line = Buffer.concat(pending, pendingBytes);
        const event = decodeWatchLine<T>(line, 0, line.length, omit, path);
        if (event) yield event;
      }
    } catch (err) {
      if (signal?.aborted) return;
      if (err instanceof ApiError || err instanceof TransportError) throw err;
      throw new TransportError(`watch stream failed: ${(err as Error).message}`, 'WATCH', path, { cause: err });
    } finally {
      res.destroy();
    }
  }

  /** Closes pooled connections; in-flight watches end. */
  close(): void {
    this.transport.close();
  }

  /** Full URL of a path with its query, as this client would request it. */
  url(path: string, query?: Query): URL {
    const url = new URL(this.base.origin);
    url.pathname = this.basePath + path;
    if (query) {
      for (const [key, value] of Object.entries(query)) {
        if (value === undefined || value === null || value === '') continue;
        if (Array.isArray(value)) for (const v of value as readonly string[]) url.searchParams.append(key, v);
        else url.searchParams.set(key, String(value));
      }
    }
    return url;
  }

  /**
   * Path and query of a request as {@link url} would write them, built without a URL object
   * (parsing and serialising one per request showed in the profile of a busy operator); paths
   * with characters a URL would escape take the URL's way.
   */
  private requestPath(path: string, query: Query | undefined): string {
    let search = '';
    if (query) {
      let params: URLSearchParams | undefined;
      for (const key of Object.keys(query)) {
        const value = query[key];
        if (value === undefined || value === null || value === '') continue;
        params ??= new URLSearchParams();
        if (Array.isArray(value)) for (const v of value as readonly string[]) params.append(key, v);
        else params.set(key, String(value));
      }
      if (params) search = `?${params.toString()}`;
    }
    const full = this.basePath + path;
    if (PLAIN_PATH.test(full) && !DOT_SEGMENT.test(full)) return full + search;
    const url = this.url(path, query);
    return url.pathname + url.search;
  }

  private async once(req: RestRequest, call?: RestCall): Promise<string> {
    const res = await this.open(req, call);
    let bytes: Buffer;
    try {
      bytes = await readBody(res, this.maxResponseBytes, req.method, req.path);
    } catch (err) {
      if (req.signal?.aborted || err instanceof TransportError) throw err;
      throw new TransportError(`reading the response failed: ${(err as Error).message}`, req.method, req.path, {
        cause: err,
      });
    }
    const code = res.statusCode ?? 0;
    if (code >= 200 && code < 300) {
      return req.omitManagedFields
        ? decodeWithoutManagedFields(bytes, 0, bytes.length, 'list')
        : bytes.toString('utf8');
    }
    const status = statusFromResponse(code, bytes.toString('utf8'));
    const header = res.headers['retry-after'];
    const retryAfter = header !== undefined && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
    if ((code === 429 || code >= 500) && retryAfter !== undefined && !status.details?.retryAfterSeconds) {
      status.details = { ...status.details, retryAfterSeconds: retryAfter };
    }
    const error = new ApiError(status, req.method, req.path);
    if (code >= 500 && retryAfter !== undefined) serverAskedToRetry.set(error, retryAfter);
    throw error;
  }

  private reportWarnings(header: string | string[], req: RestRequest): void {
    // RFC 7234 warnings as the apiserver sends them: `299 - "message"`, several per header possible.
    const values = Array.isArray(header) ? header : [header];
    for (const value of values) {
      for (const match of value.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)) {
        this.onWarning!(match[1]!.replace(/\\(.)/g, '$1'), { method: req.method, path: req.path });
      }
    }
  }

  /** Sends the request and resolves with the response once its headers arrive. */
  private async open(req: RestRequest, call?: RestCall): Promise<http.IncomingMessage> {
    const started = performance.now();
    const budgetMs = req.timeoutMs ?? this.timeoutMs;
    // The timeout and the abort signal hold from the start: a hung exec plugin or a long limiter
    // wait must not keep a call (a leader's lease renewal) waiting past its deadline.
    const bounded = <T>(work: Promise<T>): Promise<T> =>
      withinDeadline(work, req, budgetMs > 0 ? budgetMs - (performance.now() - started) : 0);
    // A token that is there is taken synchronously: no timer, no promise. Only an empty bucket
    // makes the request wait, bounded by the call's timeout and signal; a call that gives up
    // leaves the queue instead of taking a token later that no request would use.
    if (this.limiter && !this.limiter.takeIfFree()) {
      const leave = new AbortController();
      const signal = req.signal ? AbortSignal.any([req.signal, leave.signal]) : leave.signal;
      try {
        await bounded(this.limiter.take(signal) ?? Promise.resolve());
      } finally {
        leave.abort();
      }
      call?.rateLimited((performance.now() - started) / 1000);
    } else if (this.limiter) call?.rateLimited(0);
    // Static credentials (the usual certificate or token) are there synchronously: no deadline
    // race, no timer, no promise per request.
    const auth = this.staticAuth ?? (await bounded(this.transport.authHeaders()));
    // Values may be lists (impersonated groups, extras): Node's http sends one line per value.
    const headers: Record<string, string | string[]> = {
      accept: req.accept ?? 'application/json',
      'user-agent': this.userAgent,
      ...auth,
      ...req.headers,
      ...call?.headers,
    };
    let payload: string | Buffer | undefined;
    if (req.body !== undefined) {
      payload = typeof req.body === 'string' || Buffer.isBuffer(req.body) ? req.body : JSON.stringify(req.body);
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const timeoutMs = budgetMs > 0 ? Math.max(1, Math.ceil(budgetMs - (performance.now() - started))) : 0;
    const lib = this.transport.isHttps ? https : http;
    return new Promise<http.IncomingMessage>((resolve, reject) => {
      const httpReq = lib.request({
        ...this.target,
        path: this.requestPath(req.path, req.query),
        method: req.method,
        headers,
        agent: this.transport.agent,
      });
      let response: http.IncomingMessage | undefined;
      let failure: Error | undefined;
      // One failure path for abort and timeout, before or after the headers arrived: destroying
      // the response makes whoever reads the body see the same error.
      const fail = (err: Error): void => {
        if (failure) return;
        failure = err;
        httpReq.destroy(err);
        response?.destroy(err);
      };
      const onAbort = (): void => fail(abortReason(req.signal));
      const timer =
        timeoutMs > 0
          ? this.deadlines.schedule(() => fail(new RequestTimeoutError(req.method, req.path, timeoutMs)), timeoutMs)
          : undefined;
      const cleanup = (): void => {
        timer?.cancel();
        req.signal?.removeEventListener('abort', onAbort);
      };
      if (req.signal?.aborted) onAbort();
      else req.signal?.addEventListener('abort', onAbort, { once: true });
      httpReq.on('response', (res) => {
        response = res;
        call?.answered(res.statusCode);
        if (this.onWarning && res.headers.warning) this.reportWarnings(res.headers.warning, req);
        res.on('error', () => undefined);
        res.once('close', cleanup);
        resolve(res);
      });
      httpReq.on('error', (err) => {
        cleanup();
        if (!response) call?.answered(undefined);
        reject(failure ?? new TransportError(err.message, req.method, req.path, { cause: err }));
      });
      httpReq.end(payload);
    });
  }
}

/** 5xx answers that carried a Retry-After header, with its seconds: the ones client-go retries. */
const serverAskedToRetry = new WeakMap<ApiError, number>();

/** Connection errors after which client-go sends a GET again (its IsConnectionReset and IsProbableEOF). */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/** Seconds to wait before sending a failed request again, or undefined when it must not be. */
function retryWaitSeconds(err: unknown, req: RestRequest): number | undefined {
  if (err instanceof ApiError) {
    if (err.code === 429) return err.retryAfterSeconds ?? 1;
    return serverAskedToRetry.get(err);
  }
  if (
    req.method !== 'GET' ||
    !(err instanceof TransportError) ||
    err instanceof RequestTimeoutError ||
    req.signal?.aborted
  )
    return undefined;
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && RESET_CODES.has(code) ? 1 : undefined;
}

/**
 * Settles with `work`, or rejects when the request's signal aborts or `remainingMs` (0: no
 * limit) passes first. The work itself goes on (a plugin is killed by its own timeout).
 */
function withinDeadline<T>(work: Promise<T>, req: RestRequest, remainingMs: number): Promise<T> {
  if (!req.signal && remainingMs === 0) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => finish(() => reject(abortReason(req.signal)));
    const timer =
      remainingMs !== 0
        ? setTimeout(
            () => finish(() => reject(new RequestTimeoutError(req.method, req.path, req.timeoutMs ?? remainingMs))),
            Math.max(1, remainingMs),
          )
        : undefined;
    let done = false;
    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      settle();
    };
    if (req.signal?.aborted) return onAbort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('The operation was aborted', 'AbortError');
}

function readBody(res: http.IncomingMessage, maxBytes: number, method: string, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        const error = new TransportError(
          `the response body is larger than ${maxBytes} bytes (maxResponseBytes)`,
          method,
          path,
        );
        reject(error);
        res.destroy(error);
        return;
      }
      chunks.push(c);
    });
    res.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    res.on('error', reject);
    res.on('close', () => {
      if (!res.complete) reject(res.errored ?? new Error('connection closed before the response completed'));
    });
    if (res.errored) reject(res.errored);
  });
}

/** A path a URL keeps as it is: a leading `/`, then letters, digits and the punctuation its path setter leaves alone. */
const PLAIN_PATH = /^\/[!$%&'()*+,\-./0-9:;=@A-Z_a-z~]*$/;
/** A `.` or `..` segment (also percent-encoded), which a URL would resolve away. */
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

const WATCH_EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

const NEWLINE = 0x0a;

/**
 * Decodes the watch event in `bytes[start, end)` (trimmed; undefined for a blank line), without
 * its object's managedFields when `omit` is set. The bytes are the caller's: the cut is made in place.
 */
function decodeWatchLine<T>(
  bytes: Buffer,
  start: number,
  end: number,
  omit: boolean,
  path: string,
): RawWatchEvent<T> | undefined {
  while (start < end && isBlank(bytes[start]!)) start++;
  while (end > start && isBlank(bytes[end - 1]!)) end--;
  if (start === end) return undefined;
  const text = omit ? decodeWithoutManagedFields(bytes, start, end, 'event') : bytes.toString('utf8', start, end);
  return decodeWatchEvent<T>(text, path);
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function decodeWatchEvent<T>(line: string, path: string): RawWatchEvent<T> {
  const event = JSON.parse(line) as RawWatchEvent<T> | null;
  if (event?.type === 'ERROR') throw watchError(event.object, path);
  // A malformed event (no object, `object: null`, an unknown type) is the stream's fault, not an
  // object to cache: fail the watch, so the informer lists again after its backoff.
  if (
    typeof event !== 'object' ||
    event === null ||
    !WATCH_EVENT_TYPES.has(event.type) ||
    typeof event.object !== 'object' ||
    event.object === null ||
    Array.isArray(event.object)
  ) {
    throw new TransportError(
      `malformed watch event (type ${JSON.stringify(event?.type ?? null)}, object ${event?.object === null ? 'null' : typeof event?.object})`,
      'WATCH',
      path,
    );
  }
  return event;
}

function watchError(object: unknown, path: string): ApiError {
  const status: Status = isStatusObject(object)
    ? object
    : { kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError', message: JSON.stringify(object) };
  return new ApiError(status, 'WATCH', path);
}
