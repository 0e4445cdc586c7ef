import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers one GET path: status code, content type and body. */
export type RouteHandler = (url: URL) => Promise<{ status: number; contentType?: string; body: string }>;

/**
 * Parses a bind address as controller-runtime flags write it: `:8080` (all interfaces),
 * `127.0.0.1:8080`, `[::1]:8080`; `0` or '' disables the server.
 */
export function parseBindAddress(address: string): { host: string | undefined; port: number } | undefined {
  if (address === '' || address === '0') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(address);
  if (!match)
    throw new RangeError(`bind address "${address}" is not host:port (e.g. ":8080" or "127.0.0.1:8080"); "0" disables`);
  return { host: match[1] ?? (match[2] || undefined), port: Number(match[3]) };
}

/** A small HTTP server for probes and metrics. */
export class ProbeServer {
  private readonly server: http.Server;

  /** `routes` maps exact paths, or `/path/*` for everything below `/path`, to handlers. */
  constructor(private readonly routes: Record<string, RouteHandler>) {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      // `/path/*` answers every path below /path (a check by name: /healthz/<name>).
      const route = this.routes[url.pathname] ?? this.routes[`/${url.pathname.split('/')[1]}/*`];
      if (!route || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      route(url).then(
        (answer) =>
          res
            .writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain; charset=utf-8' })
            .end(answer.body),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(err)}\n`),
      );
    });
    // Probes must never keep a shutting-down manager alive.
    this.server.keepAliveTimeout = 5_000;
  }

  /** Listens on `address`; resolves with `host:port` actually bound. */
  listen(address: { host: string | undefined; port: number }): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(address.port, address.host, () => {
        const bound = this.server.address() as AddressInfo;
        resolve(`${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`);
      });
    });
  }

  /** Stops listening and closes idle connections. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
