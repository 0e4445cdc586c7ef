// A broken or hostile server cannot exhaust the operator's memory or stall its caches unseen:
// bodies and watch events are capped, a list whose continue tokens never end is given up, a
// malformed watch event fails the watch, and a watch that keeps failing turns /readyz red.
// An in-process HTTP server plays the apiserver: a real one cannot be made to misbehave so.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager, silentLogger } from '../../../src/runtime/index.js';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { coreV1ConfigMapType } from '../../../src/runtime/builtin/index.js';
import { TransportError } from '../../../src/runtime/client/errors/api-error.js';
import { UnendingListError, listComplete } from '../../../src/runtime/client/resource/list-pager.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';

let server: http.Server;
let base: string;
let mode = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/huge-body') {
      // 8 MiB of a JSON string, sent in chunks.
      res.write('{"items":"');
      for (let i = 0; i < 8; i++) res.write('x'.repeat(1024 * 1024));
      res.end('"}');
      return;
    }
    if (url.searchParams.get('watch') === 'true') {
      if (mode === 'endless-line') {
        const chunk = '{"type":"ADDED","object":{"metadata":{"name":"' + 'y'.repeat(64 * 1024);
        const timer = setInterval(() => res.write(chunk), 1);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.write(JSON.stringify({ type: 'ADDED', object: null }) + '\n');
      setTimeout(() => res.end(), 50);
      return;
    }
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' }, items: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = (options: ConstructorParameters<typeof RestClient>[1] = {}): RestClient =>
  new RestClient(loadClientConfig({ server: base, env: {} }), options);

describe('limits against a hostile server', () => {
  it('refuses a response body over maxResponseBytes', async () => {
    const rest = client({ maxResponseBytes: 1024 * 1024 });
    const error = await rest.get('/huge-body').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toMatch(/larger than 1048576 bytes \(maxResponseBytes\)/);
    rest.close();
  });

  it('closes a watch whose line never ends, before it holds more than maxWatchEventBytes', async () => {
    mode = 'endless-line';
    const rest = client({ maxWatchEventBytes: 2 * 1024 * 1024 });
    const before = process.memoryUsage().rss;
    const events = new ResourceClient(rest, coreV1ConfigMapType, 'x').watch({});
    const error = await (async () => {
      for await (const event of events) void event;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toMatch(/maxWatchEventBytes/);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    rest.close();
    mode = '';
  });

  it('fails a watch on an event whose object is null', async () => {
    const rest = client();
    const events = new ResourceClient(rest, coreV1ConfigMapType, 'x').watch({});
    const error = await (async () => {
      for await (const event of events) void event;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toMatch(/malformed watch event \(type "ADDED", object null\)/);
    rest.close();
  });

  it('gives up a paged list whose continue tokens repeat or never end', async () => {
    let calls = 0;
    const repeating = (): Promise<{ metadata: { continue: string; resourceVersion: string }; items: never[] }> =>
      Promise.resolve({ metadata: { continue: 'again', resourceVersion: '1' }, items: [] });
    await expect(listComplete(repeating)).rejects.toBeInstanceOf(UnendingListError);
    const endless = (): Promise<{ metadata: { continue: string; resourceVersion: string }; items: never[] }> =>
      Promise.resolve({ metadata: { continue: `page-${++calls}`, resourceVersion: '1' }, items: [] });
    await expect(listComplete(endless, { maxPages: 50 })).rejects.toThrow(/more than 50 pages/);
    expect(calls).toBe(50);
  });

  it('turns /readyz red when a watch keeps failing, and says why; /healthz stays green', async () => {
    const manager = new Manager({
      rest: client(),
      metricsBindAddress: '0',
      healthProbeBindAddress: '127.0.0.1:0',
      logger: silentLogger,
      informerFailureReadinessMs: 300,
      informerDefaults: { resyncPeriodMs: 0 },
    });
    manager.informerFor(coreV1ConfigMapType);
    const running = manager.start();
    try {
      const get = async (path: string): Promise<{ status: number; body: string }> => {
        const res = await fetch(`http://${manager.healthProbeAddress}${path}`);
        return { status: res.status, body: await res.text() };
      };
      const deadline = Date.now() + 10_000;
      while (!manager.healthProbeAddress) await new Promise((r) => setTimeout(r, 10));
      let ready = await get('/readyz?verbose');
      // Until synced, /readyz is red for that reason; then for the failing watch.
      while (!/informers-healthy failed/.test(ready.body) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        ready = await get('/readyz?verbose');
      }
      expect(ready.status).toBe(500);
      expect(ready.body).toMatch(/informers-healthy.*ConfigMap.*malformed watch event/s);
      expect((await get('/healthz')).status).toBe(200);
    } finally {
      await manager.stop();
      await running.catch(() => undefined);
      manager.rest.close();
    }
  });
});
