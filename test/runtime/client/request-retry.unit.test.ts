import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/runtime/index.js';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { TransportError } from '../../../src/runtime/client/errors/api-error.js';

// Which failed requests the RestClient sends again, held to client-go's rules: a GET whose
// connection was reset, and any answer (429 or 5xx) that carries Retry-After. Failures the real
// apiserver cannot be made to produce on demand come from this server, over real sockets.
let server: http.Server;
let base: string;
const hits = new Map<string, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url!, 'http://x').pathname;
      const n = (hits.get(path) ?? 0) + 1;
      hits.set(path, n);
      const ok = (): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ attempt: n }));
      };
      if (path.startsWith('/reset-once')) {
        // What a keep-alive connection the server closed (an apiserver restart) looks like.
        if (n === 1) req.socket.destroy();
        else ok();
      } else if (path === '/unavailable-then-ok') {
        if (n === 1) {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
          res.end(
            JSON.stringify({
              kind: 'Status',
              status: 'Failure',
              code: 503,
              reason: 'ServiceUnavailable',
              message: 'try later',
            }),
          );
        } else ok();
      } else if (path === '/server-timeout-then-ok') {
        if (n === 1) {
          res.writeHead(500, { 'content-type': 'application/json', 'retry-after': '0' });
          res.end(
            JSON.stringify({
              kind: 'Status',
              status: 'Failure',
              code: 500,
              reason: 'ServerTimeout',
              message: 'still processing',
              details: { retryAfterSeconds: 0 },
            }),
          );
        } else ok();
      } else if (path === '/reset-always') {
        req.socket.destroy();
      } else if (path === '/unavailable-long') {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            status: 'Failure',
            code: 503,
            reason: 'ServiceUnavailable',
            message: 'try much later',
          }),
        );
      } else if (path === '/internal-error') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' }),
        );
      } else ok();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function client(): RestClient {
  return new RestClient(loadClientConfig({ server: base, env: {} }), { qps: Infinity });
}

describe('RestClient retries like client-go', () => {
  it('sends a GET again when its connection was reset, but never a write', async () => {
    const c = client();
    await expect(c.get<{ attempt: number }>('/reset-once-get')).resolves.toEqual({ attempt: 2 });
    const err = await c.post('/reset-once-post', { a: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(hits.get('/reset-once-post')).toBe(1);
    c.close();
  }, 10_000);

  it('waits for Retry-After on a 5xx that carries it, and does not retry a 5xx without it', async () => {
    const c = client();
    await expect(c.get('/unavailable-then-ok')).resolves.toEqual({ attempt: 2 });
    await expect(c.put('/server-timeout-then-ok', { a: 1 })).resolves.toEqual({ attempt: 2 });
    const err = await c.get('/internal-error').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(hits.get('/internal-error')).toBe(1);
    c.close();
  });

  it('keeps a call within its timeout: no retry wait that would end past it', async () => {
    const c = client();
    let started = performance.now();
    await expect(c.get('/reset-always', undefined, { timeoutMs: 400 })).rejects.toBeInstanceOf(TransportError);
    expect(performance.now() - started).toBeLessThan(900);
    expect(hits.get('/reset-always')).toBe(1);
    started = performance.now();
    await expect(c.get('/unavailable-long', undefined, { timeoutMs: 2000 })).rejects.toMatchObject({ code: 503 });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(hits.get('/unavailable-long')).toBe(1);
    c.close();
  });
});
