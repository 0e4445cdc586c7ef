import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { RequestTimeoutError } from '../../../src/runtime/client/errors/api-error.js';
import { TokenBucket } from '../../../src/runtime/util/token-bucket.js';

// controller-runtime's defaults: no client-side limiter unless one is asked for, and a request that
// finds a token goes at once.
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function client(options = {}): RestClient {
  return new RestClient(loadClientConfig({ server: base, env: {} }), options);
}

/** Milliseconds `n` concurrent GETs take. */
async function timeOf(c: RestClient, n: number): Promise<number> {
  const start = performance.now();
  await Promise.all(Array.from({ length: n }, () => c.get('/api/v1/x')));
  return performance.now() - start;
}

describe('RestClient client-side limiter', () => {
  const cases = [
    { name: 'no options', given: {} },
    { name: 'qps 0', given: { qps: 0 } },
    { name: 'qps negative (client-go -1)', given: { qps: -1, burst: 1 } },
    { name: 'qps Infinity', given: { qps: Infinity } },
  ];
  for (const { name, given } of cases) {
    it(`has none with ${name}: 400 requests at once are not paced`, async () => {
      const c = client(given);
      // A 50 qps / 100 burst limiter (the old default) needs 6 s for these.
      expect(await timeOf(c, 400)).toBeLessThan(3500);
      c.close();
    });
  }

  it('paces at qps after a burst of 2 × qps when only qps is given', async () => {
    const c = client({ qps: 10 });
    // 20 go at once, the next 3 wait 100 ms each.
    const ms = await timeOf(c, 23);
    expect(ms).toBeGreaterThanOrEqual(280);
    expect(ms).toBeLessThan(1500);
    c.close();
  });
});

/** setTimeout calls made while `n` GETs run one after another. */
async function timersOf(c: RestClient, n: number): Promise<number> {
  await c.get('/api/v1/x'); // connection set up outside the count
  const spy = vi.spyOn(globalThis, 'setTimeout');
  try {
    for (let i = 0; i < n; i++) await c.get('/api/v1/x');
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

describe('RestClient with a limiter that has tokens', () => {
  it('starts no more timers per request than a client without a limiter', async () => {
    const plain = client();
    const limited = client({ qps: 1000, burst: 1000 });
    const without = await timersOf(plain, 20);
    const withTokens = await timersOf(limited, 20);
    // The call's own timeout is one timer per request in both; a limiter wait bounded by the
    // deadline would add one more per request.
    expect(withTokens).toBe(without);
    plain.close();
    limited.close();
  });
});

describe('RestClient waiting for a token', () => {
  it("gives up at the call's timeout or abort instead of waiting for the token", async () => {
    const c = client({ qps: 0.5, burst: 1 });
    await c.get('/api/v1/x'); // the only token; the next accrues in 2 s
    const start = performance.now();
    await expect(c.get('/api/v1/x', {}, { timeoutMs: 100 })).rejects.toBeInstanceOf(RequestTimeoutError);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await expect(c.get('/api/v1/x', {}, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - start).toBeLessThan(1000);
    c.close();
  });

  it('does not spend a token on a call that gave up waiting for it', async () => {
    const c = client({ qps: 2, burst: 1 });
    await c.get('/api/v1/x'); // the only token; the next accrues in 500 ms
    const start = performance.now();
    await expect(c.get('/api/v1/x', {}, { timeoutMs: 50 })).rejects.toBeInstanceOf(RequestTimeoutError);
    await c.get('/api/v1/x');
    // The token at 500 ms is this request's; had the timed-out call taken it, this one would wait to 1000 ms.
    expect(performance.now() - start).toBeLessThan(850);
    c.close();
  });
});

describe('TokenBucket.take', () => {
  it('takes an available token synchronously: no promise, no timer', async () => {
    let now = 0;
    const bucket = new TokenBucket(10, 2, () => now);
    expect(bucket.take()).toBeUndefined();
    expect(bucket.take()).toBeUndefined();
    const waiting = bucket.take();
    expect(waiting).toBeInstanceOf(Promise);
    expect(bucket.take()).toBeInstanceOf(Promise);
    // Refilled on the fake clock: once nobody waits ahead, the next caller gets its token at once again.
    now += 1000;
    await waiting;
    await new Promise((r) => setImmediate(r));
    now += 1000;
    expect(bucket.take()).toBeUndefined();
  });

  it('does not let a caller with a token overtake one already waiting', async () => {
    let now = 0;
    const bucket = new TokenBucket(1000, 1, () => now);
    expect(bucket.take()).toBeUndefined();
    const first = bucket.take();
    expect(first).toBeInstanceOf(Promise);
    now += 5; // tokens accrued, but `first` is queued ahead
    const second = bucket.take();
    expect(second).toBeInstanceOf(Promise);
    const order: number[] = [];
    const served = (n: number) => () => {
      order.push(n);
      now += 5;
    };
    await Promise.all([first!.then(served(1)), second!.then(served(2))]);
    expect(order).toEqual([1, 2]);
  });
});
