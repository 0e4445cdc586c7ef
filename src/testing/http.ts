import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';

/** A response read to its end. */
export interface HttpResponse {
  status: number;
  text: string;
}

/** Adds authentication and trust to a request (client certificate, bearer token, exec plugin...). */
export type ApplyCredentials = (options: RequestOptions) => Promise<void>;

/**
 * The few API calls kop/testing itself makes (readiness, namespaces, CRDs), over node's
 * https module so kop/testing depends on no client library being finished.
 */
export class ApiServerTransport {
  private readonly agent: Agent;

  constructor(
    /** https://host:port, perhaps with a path prefix; no trailing slash. */
    readonly server: string,
    tls: { caPem?: string; certPem?: string; keyPem?: string },
    private readonly applyCredentials?: ApplyCredentials,
  ) {
    this.agent = new Agent({ keepAlive: true, ca: tls.caPem, cert: tls.certPem, key: tls.keyPem });
  }

  /** Sends one request; JSON bodies are serialised here. Network errors reject. */
  async request(
    method: string,
    path: string,
    body?: unknown,
    options: { timeoutMs?: number; contentType?: string } = {},
  ): Promise<HttpResponse> {
    // Keep a path prefix of the server URL (proxies such as https://host/k8s/clusters/<id>).
    const base = new URL(this.server);
    const url = new URL(base.pathname.replace(/\/+$/, '') + path, base);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const requestOptions: RequestOptions = {
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      agent: url.protocol === 'https:' ? this.agent : undefined,
      headers: {
        accept: 'application/json',
        ...(payload === undefined
          ? {}
          : {
              'content-type': options.contentType ?? 'application/json',
              'content-length': Buffer.byteLength(payload),
            }),
      },
    };
    if (this.applyCredentials) {
      requestOptions.agent = undefined;
      await this.applyCredentials(requestOptions);
    }
    return send(url.protocol === 'http:' ? 'http' : 'https', requestOptions, payload, options.timeoutMs ?? 15_000);
  }

  /** Sends a request and parses a JSON answer; throws {@link ApiRequestError} for any status >= 300. */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request(method, path, body);
    if (response.status >= 300) throw new ApiRequestError(method, path, response);
    return JSON.parse(response.text) as T;
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

/** A Kubernetes API call answered with an error status. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly reason: string | undefined;
  constructor(method: string, path: string, response: HttpResponse) {
    let reason: string | undefined;
    let detail = response.text.slice(0, 500);
    try {
      const status = JSON.parse(response.text) as { reason?: string; message?: string };
      reason = status.reason;
      if (status.message) detail = status.message;
    } catch {
      // Not a Status object; keep the raw text.
    }
    super(`${method} ${path}: ${response.status} ${detail}`);
    this.name = 'ApiRequestError';
    this.status = response.status;
    this.reason = reason;
  }
}

/** Plain HTTP(S) request helper, also used for etcd's JSON gateway. */
export function send(
  scheme: 'http' | 'https',
  options: RequestOptions,
  payload: string | undefined,
  timeoutMs: number,
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const request = (scheme === 'http' ? httpRequest : httpsRequest)(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.setTimeout(timeoutMs, () =>
      request.destroy(new Error(`request to ${options.path} timed out after ${timeoutMs} ms`)),
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** POSTs JSON to a plain-HTTP URL (etcd's v3 gateway) and parses the JSON answer. */
export async function postJson<T>(url: string, body: unknown, timeoutMs = 10_000): Promise<T> {
  const target = new URL(url);
  const payload = JSON.stringify(body);
  const response = await send(
    'http',
    {
      method: 'POST',
      hostname: target.hostname,
      port: target.port,
      path: target.pathname,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    },
    payload,
    timeoutMs,
  );
  if (response.status >= 300) throw new Error(`POST ${url}: ${response.status} ${response.text.slice(0, 300)}`);
  return JSON.parse(response.text) as T;
}
