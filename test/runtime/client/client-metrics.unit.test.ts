import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { Manager } from '../../../src/runtime/index.js';
import { ManagerMetrics } from '../../../src/runtime/manager/metrics.js';
import { observeRestCalls } from '../../../src/runtime/client/rest/instrumentation.js';

// client-go's REST client metrics, under its names and labels, as a manager exports them. The
// answers (a 429 with Retry-After, a 404, a reset connection) come from this server over real
// sockets, since the apiserver cannot be made to give them on demand.
let server: http.Server;
let base: string;
let host: string;
const hits = new Map<string, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url!, 'http://x').pathname;
      const n = (hits.get(path) ?? 0) + 1;
      hits.set(path, n);
      if (path === '/throttled-once' && n === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end(JSON.stringify({ kind: 'Status', status: 'Failure', code: 429, reason: 'TooManyRequests' }));
      } else if (path === '/missing') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' }));
      } else if (path === '/reset') {
        req.socket.destroy();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = `http://${host}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** The value of one sample line of the exposition text, or undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf('}'));
    const found = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const keys = Object.keys(labels);
    if (keys.length === Object.keys(found).length && keys.every((k) => found[k] === labels[k]))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('rest_client_* metrics', () => {
  it('counts each attempt by code, method and host, retries by code, and the call latency by verb', async () => {
    const metrics = new ManagerMetrics({ processMetrics: false });
    const client = new RestClient(loadClientConfig({ server: base, env: {} }), { maxThrottleRetries: 3 });
    observeRestCalls(client, metrics.restClient());
    await client.get('/ok');
    await client.put('/ok', { a: 1 });
    await client.get('/throttled-once');
    await expect(client.get('/missing')).rejects.toThrow();
    await expect(client.post('/reset', {})).rejects.toThrow();
    client.close();
    const text = await metrics.render();
    // given -> want: one line per attempt outcome.
    const cases: Array<{ labels: Record<string, string>; want: number }> = [
      { labels: { code: '200', method: 'GET', host }, want: 2 },
      { labels: { code: '200', method: 'PUT', host }, want: 1 },
      { labels: { code: '429', method: 'GET', host }, want: 1 },
      { labels: { code: '404', method: 'GET', host }, want: 1 },
      { labels: { code: '<error>', method: 'POST', host }, want: 1 },
    ];
    for (const { labels, want } of cases)
      expect(sample(text, 'rest_client_requests_total', labels), JSON.stringify(labels)).toBe(want);
    expect(sample(text, 'rest_client_request_retries_total', { code: '429', verb: 'GET', host })).toBe(1);
    // Four GET calls (the retried one once), one PUT, one POST.
    expect(sample(text, 'rest_client_request_duration_seconds_count', { verb: 'GET', host })).toBe(3);
    expect(sample(text, 'rest_client_request_duration_seconds_count', { verb: 'PUT', host })).toBe(1);
    expect(sample(text, 'rest_client_request_duration_seconds_count', { verb: 'POST', host })).toBe(1);
    // No client-side limiter (the default): no limiter latency is observed.
    expect(text).not.toMatch(/^rest_client_rate_limiter_duration_seconds_count/m);
  });

  it('observes the limiter wait of every attempt while a limiter is on', async () => {
    const metrics = new ManagerMetrics({ processMetrics: false });
    const client = new RestClient(loadClientConfig({ server: base, env: {} }), { qps: 20, burst: 1 });
    observeRestCalls(client, metrics.restClient());
    await Promise.all([client.get('/ok'), client.get('/ok'), client.get('/ok')]);
    client.close();
    const text = await metrics.render();
    expect(sample(text, 'rest_client_rate_limiter_duration_seconds_count', { verb: 'GET', host })).toBe(3);
    // Three requests at 20 qps with a burst of 1: the last waited about 100 ms.
    expect(sample(text, 'rest_client_rate_limiter_duration_seconds_sum', { verb: 'GET', host })).toBeGreaterThan(0.1);
  });

  it("are on the manager's /metrics for its REST client, counting a watch's answer", async () => {
    const rest = new RestClient(loadClientConfig({ server: base, env: {} }));
    const manager = new Manager({ rest, metricsBindAddress: '0', healthProbeBindAddress: '0' });
    await manager.rest.get('/ok');
    const watch = manager.rest.watch('/api/v1/pods');
    // The server answers the watch with `{}` and closes it: a malformed event, but the answer counted.
    await expect(watch.next()).rejects.toThrow();
    rest.close();
    const text = await manager.metrics.render();
    expect(sample(text, 'rest_client_requests_total', { code: '200', method: 'GET', host })).toBe(2);
    expect(sample(text, 'rest_client_request_duration_seconds_count', { verb: 'GET', host })).toBe(1);
  });
});
