import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookServer } from '../../../src/runtime/webhook/index.js';
import { timeoutOf } from '../../../src/runtime/webhook/webhook-server.js';
import { makeCertDir, post, type CertDir } from './helpers.js';

describe('timeoutOf (the apiserver adds ?timeout=<Go duration>)', () => {
  it.each([
    ['', 10_000],
    ['?timeout=10s', 10_000],
    ['?timeout=1m0s', 30_000],
    ['?timeout=2.5s', 2_500],
    ['?timeout=500ms', 500],
    ['?timeout=1s500ms', 1_500],
    ['?timeout=forever', 10_000],
    ['?timeout=10', 10_000],
    ['?timeout=0s', 10_000],
    ['?timeout=5sx', 10_000],
  ])('%s -> %d ms', (query, want) => {
    expect(timeoutOf(new URL(`https://x/validate${query}`))).toBe(want);
  });
});

describe("a request's signal", () => {
  let certs: CertDir;
  let server: WebhookServer;
  let address: string;
  const seen: string[] = [];
  beforeAll(async () => {
    certs = await makeCertDir();
    server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: certs.dir });
    server.register('/wait', async ({ signal }) => {
      const reason = await new Promise<string>((resolve) => {
        signal.addEventListener('abort', () => resolve(String((signal.reason as Error).message)), { once: true });
      });
      seen.push(reason);
      return { status: 200, body: { aborted: reason } };
    });
    server.register('/quick', async ({ signal }) => ({ status: 200, body: { aborted: signal.aborted } }));
    address = await server.start();
  });
  afterAll(async () => {
    await server.stop(100);
    await certs.remove();
  });

  it("aborts when the request's timeout passes", async () => {
    const started = Date.now();
    const answer = await post(address, '/wait?timeout=200ms', {}, { ca: certs.ca.certPem });
    expect(JSON.parse(answer.body)).toEqual({ aborted: "the request's timeout of 200 ms passed" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('is not aborted for a request answered in time', async () => {
    expect(JSON.parse((await post(address, '/quick?timeout=1s', {}, { ca: certs.ca.certPem })).body)).toEqual({
      aborted: false,
    });
  });

  it('a path is registered once', () => {
    expect(() => server.register('/quick', async () => ({ status: 200, body: {} }))).toThrow(/registered already/);
    expect(() => server.register('quick', async () => ({ status: 200, body: {} }))).toThrow(/must start with "\/"/);
  });

  it('aborts requests still in flight when the shutdown deadline passes', async () => {
    const answer = post(address, '/wait?timeout=30s', {}, { ca: certs.ca.certPem }).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 100));
    await server.stop(100);
    expect(seen).toContain('webhook server stopped');
    // Its connection was closed at the deadline: the client sees the connection end.
    expect(await answer).toBeInstanceOf(Error);
  });
});
