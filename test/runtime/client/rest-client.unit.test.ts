import { setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, isConflict, isNotFound } from '../../../src/runtime/index.js';
import { RestClient, isGone, loadClientConfig } from '../../../src/runtime/client/index.js';
import { RequestTimeoutError, TransportError, isUnauthorized } from '../../../src/runtime/client/errors/api-error.js';
import { TokenBucket } from '../../../src/runtime/util/token-bucket.js';
import { clientConfigFromString } from '../../../src/runtime/client/config/client-config.js';

// An in-memory apiserver stand-in: exercises URL building, decoding, errors, timeouts and watch
// framing without a control plane. Behaviour against the real apiserver is in *.test.ts beside it.
let server: http.Server;
let base: string;
const seen: { method: string; url: string; body: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body, headers: req.headers });
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/api/v1/namespaces/ns/configmaps/missing') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'NotFound',
            code: 404,
            message: 'configmaps "missing" not found',
            details: { name: 'missing', kind: 'configmaps' },
          }),
        );
      } else if (url.pathname === '/plain-409') {
        res.writeHead(409);
        res.end('conflict happened');
      } else if (url.pathname === '/slow') {
        setTimeout(() => res.end('{}'), 2000).unref();
      } else if (url.pathname === '/needs-new-token') {
        const ok = req.headers.authorization === 'Bearer new';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        res.end(
          ok
            ? '{"ok":true}'
            : JSON.stringify({ kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' }),
        );
      } else if (url.pathname === '/throttled') {
        const n = seen.filter((s) => s.url === '/throttled').length;
        if (n < 2) {
          res.writeHead(429, { 'retry-after': '0' });
          res.end();
        } else res.end('{"ok":true}');
      } else if (url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const ev = (type: string, name: string, rv: string): string =>
          JSON.stringify({ type, object: { kind: 'ConfigMap', metadata: { name, resourceVersion: rv } } }) + '\n';
        // Split one event across two writes to exercise line framing.
        const first = ev('ADDED', 'a', '1');
        res.write(first.slice(0, 10));
        setTimeout(() => {
          res.write(first.slice(10) + ev('MODIFIED', 'a', '2'));
          if (url.pathname.endsWith('/gone')) {
            res.end(
              JSON.stringify({
                type: 'ERROR',
                object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' },
              }) + '\n',
            );
          } else if (url.pathname.endsWith('/drop')) {
            setTimeout(() => res.socket?.destroy(), 30);
          } else if (url.pathname.endsWith('/forever')) {
            // keep the stream open; the client must cancel it
          } else {
            res.end(ev('DELETED', 'a', '3'));
          }
        }, 20);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, path: url.pathname, query: url.search }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function client(options = {}): RestClient {
  return new RestClient(loadClientConfig({ server: base, env: {} }), options);
}

describe('RestClient against an in-memory server', () => {
  it('builds paths and repeats array query values, leaving out empty ones', async () => {
    const c = client();
    const got = await c.get<{ path: string; query: string }>('/api/v1/pods', {
      labelSelector: 'a=b',
      limit: 5,
      x: undefined,
      e: '',
      m: ['1', '2'],
    });
    expect(got.path).toBe('/api/v1/pods');
    expect(got.query).toBe('?labelSelector=a%3Db&limit=5&m=1&m=2');
    c.close();
  });

  it('sends the path and query that url() shows, also for paths a URL escapes or resolves', async () => {
    const c = new RestClient(loadClientConfig({ server: `${base}/prefix/`, env: {} }));
    const cases: { path: string; query?: Record<string, string | number | readonly string[] | undefined> }[] = [
      { path: '/api/v1/namespaces/default/configmaps/a.b-c', query: { fieldManager: 'kop', dryRun: ['All'] } },
      { path: '/apis/cache.example.com/v1alpha1/namespaces/ns/redisclusters/x/status' },
      { path: '/api/v1/namespaces/a b/pods', query: { labelSelector: 'app in (a, b),!x', e: undefined } },
      { path: '/api/v1/namespaces/./pods/../secrets' },
      { path: '/api/v1/namespaces/%2e%2e/pods' },
      { path: '/api/v1/namespaces/ü/pods?x#y' },
      { path: '/api/v1/namespaces/a\\b/pods' },
      { path: 'api/v1/namespaces' },
      { path: "/api/v1/namespaces/a'b:c@d~e!$&*+,;=/pods", query: { q: "a'b:c@d~e!$&*+,;=/?" } },
    ];
    const bare = client();
    for (const each of [c, bare]) {
      for (const { path, query } of cases) {
        await each.get(path, query);
        const want = each.url(path, query);
        expect(seen.at(-1)!.url, path).toBe(want.pathname + want.search);
      }
    }
    c.close();
    bare.close();
  });

  it('sends JSON bodies with content type and patch types', async () => {
    const c = client();
    await c.patch('/p', [{ op: 'add', path: '/a', value: 1 }], 'application/json-patch+json');
    const last = seen.at(-1)!;
    expect(last.method).toBe('PATCH');
    expect(last.headers['content-type']).toBe('application/json-patch+json');
    expect(JSON.parse(last.body)).toEqual([{ op: 'add', path: '/a', value: 1 }]);
    c.close();
  });

  it('turns a Status body into a typed ApiError', async () => {
    const c = client();
    const err = await c.get('/api/v1/namespaces/ns/configmaps/missing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(isNotFound(err)).toBe(true);
    expect((err as ApiError).status.details?.name).toBe('missing');
    c.close();
  });

  it('synthesises a Status from a plain-text error', async () => {
    const c = client();
    const err = await c.get('/plain-409').catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect((err as ApiError).status.message).toBe('conflict happened');
    c.close();
  });

  it('times out per request and honours abort signals', async () => {
    const c = client();
    await expect(c.get('/slow', {}, { timeoutMs: 50 })).rejects.toBeInstanceOf(RequestTimeoutError);
    const ac = new AbortController();
    const p = c.get('/slow', {}, { signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    c.close();
  });

  it('has no client-side rate limit unless one is asked for, as controller-runtime', () => {
    const config = loadClientConfig({ server: base, env: {} });
    expect(new RestClient(config).rateLimit).toBeUndefined();
    expect(new RestClient(config, { qps: 0 }).rateLimit).toBeUndefined();
    expect(new RestClient(config, { qps: -1 }).rateLimit).toBeUndefined();
    expect(new RestClient(config, { qps: Infinity }).rateLimit).toBeUndefined();
    expect(new RestClient(config, { qps: 20 }).rateLimit).toEqual({ qps: 20, burst: 40 });
    expect(new RestClient(config, { qps: 0.5 }).rateLimit).toEqual({ qps: 0.5, burst: 1 });
    expect(new RestClient(config, { qps: 5, burst: 7 }).rateLimit).toEqual({ qps: 5, burst: 7 });
  });

  it('sends a request at once when the limiter has a token', () => {
    const now = 0;
    const bucket = new TokenBucket(1, 2, () => now);
    // Taken synchronously: no promise to await, so no timer or tick stands between a free token and the request.
    expect(bucket.take()).toBeUndefined();
    expect(bucket.take()).toBeUndefined();
    expect(bucket.take()).toBeInstanceOf(Promise);
  });

  it('limits its own request rate to qps after a burst', async () => {
    const c = client({ qps: 20, burst: 2 });
    const start = performance.now();
    await Promise.all(Array.from({ length: 8 }, () => c.get('/api/v1/x')));
    // Two go at once, the other six wait 50ms each.
    expect(performance.now() - start).toBeGreaterThanOrEqual(280);
    c.close();
  });

  it('retries 429 after Retry-After', async () => {
    const c = client();
    expect(await c.get('/throttled')).toEqual({ ok: true });
    c.close();
  });

  it('reuses keep-alive connections', async () => {
    const c = client({ qps: Infinity });
    const sockets = new Set<unknown>();
    const onConn = (s: unknown): void => void sockets.add(s);
    server.on('connection', onConn);
    for (let i = 0; i < 20; i++) await c.get('/api/v1/x');
    server.off('connection', onConn);
    expect(sockets.size).toBe(1);
    c.close();
  });

  it('frames watch events split across chunks, in order', async () => {
    const c = client();
    const types: string[] = [];
    for await (const ev of c.watch<{ metadata: { name: string } }>('/api/v1/configmaps')) types.push(ev.type);
    expect(types).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    c.close();
  });

  it('throws watch ERROR events as ApiError (410 Gone)', async () => {
    const c = client();
    const types: string[] = [];
    const err = await (async () => {
      for await (const ev of c.watch('/api/v1/gone')) types.push(ev.type);
    })().catch((e: unknown) => e);
    expect(types).toEqual(['ADDED', 'MODIFIED']);
    expect(isGone(err)).toBe(true);
    c.close();
  });

  it('reports a watch the server drops mid-stream as a TransportError', async () => {
    const c = client();
    const types: string[] = [];
    const err = await (async () => {
      for await (const ev of c.watch('/api/v1/drop')) types.push(ev.type);
    })().catch((e: unknown) => e);
    expect(types).toEqual(['ADDED', 'MODIFIED']);
    expect(err).toBeInstanceOf(TransportError);
    c.close();
  });

  it('ends a watch quietly when its signal aborts, and on break', async () => {
    const c = client();
    const ac = new AbortController();
    const types: string[] = [];
    for await (const ev of c.watch('/api/v1/forever', {}, { signal: ac.signal })) {
      types.push(ev.type);
      if (ev.type === 'MODIFIED') ac.abort();
    }
    expect(types).toEqual(['ADDED', 'MODIFIED']);
    for await (const ev of c.watch('/api/v1/forever')) {
      if (ev.type === 'ADDED') break;
    }
    c.close();
  });
});

describe('connection pool', () => {
  it('has no connection cap by default, so open watches never starve requests', async () => {
    const c = client();
    const ac = new AbortController();
    setMaxListeners(100, ac.signal); // 80 watches share this signal on purpose
    const watches = Array.from({ length: 80 }, async () => {
      for await (const ev of c.watch('/api/v1/forever', {}, { signal: ac.signal })) void ev;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(await c.get('/api/v1/x', {}, { timeoutMs: 2000 })).toMatchObject({ path: '/api/v1/x' });
    ac.abort();
    await Promise.all(watches);
    c.close();
  });
});

describe('TokenBucket', () => {
  it('allows a burst, then paces at qps', async () => {
    let now = 0;
    const bucket = new TokenBucket(10, 3, () => now);
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, true, false]);
    now += 100;
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.tryTake()).toBe(false);
  });

  it('makes waiters wait in real time', async () => {
    const bucket = new TokenBucket(50, 1);
    const start = performance.now();
    for (let i = 0; i < 6; i++) await bucket.take();
    expect(performance.now() - start).toBeGreaterThanOrEqual(80);
  });
});

describe('dynamic credentials', () => {
  it('refreshes exec credentials after a 401 and retries once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kop-exec-unit-'));
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, 'old');
    const plugin = path.join(dir, 'plugin.cjs');
    writeFileSync(
      plugin,
      `const token = require('node:fs').readFileSync(${JSON.stringify(tokenFile)}, 'utf8');\n` +
        `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } }));\n`,
    );
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: base } }],
      users: [
        {
          name: 'u',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: [plugin],
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    };
    const c = new RestClient(clientConfigFromString(JSON.stringify(kubeconfig)));
    try {
      await expect(c.get('/needs-new-token')).rejects.toSatisfy(isUnauthorized);
      writeFileSync(tokenFile, 'new');
      // The cached "old" credential gets a 401; the client asks the plugin again and retries.
      expect(await c.get('/needs-new-token')).toEqual({ ok: true });
    } finally {
      c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
