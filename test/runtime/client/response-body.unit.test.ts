import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, isNotFound } from '../../../src/runtime/index.js';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { TransportError } from '../../../src/runtime/client/errors/api-error.js';

// Bodies a proxy or a wrong server URL sends instead of the apiserver's JSON, over real sockets.
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    const path = new URL(req.url!, 'http://x').pathname;
    if (path === '/html-ok') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><html><body>Sign in to continue</body></html>');
    } else if (path === '/html-404') {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body><h1>404 Not Found</h1></body></html>');
    } else {
      res.writeHead(502);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('responses that are not the apiserver JSON', () => {
  it('a 2xx whose body is not JSON fails with a TransportError naming the request and the body', async () => {
    const c = new RestClient(loadClientConfig({ server: base, env: {} }), { qps: Infinity });
    const err = await c.get('/html-ok').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).message).toMatch(/^GET \/html-ok: .*not JSON.*Sign in to continue/);
    c.close();
  });

  it('an HTML error page or an empty error body still makes an ApiError classified by its code', async () => {
    const c = new RestClient(loadClientConfig({ server: base, env: {} }), { qps: Infinity });
    const notFound = await c.get('/html-404').catch((e: unknown) => e);
    expect(isNotFound(notFound)).toBe(true);
    expect((notFound as ApiError).message).toContain('404 Not Found');
    const badGateway = await c.get('/empty-502').catch((e: unknown) => e);
    expect(badGateway).toBeInstanceOf(ApiError);
    expect((badGateway as ApiError).code).toBe(502);
    c.close();
  });
});
