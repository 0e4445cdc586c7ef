import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/runtime/index.js';
import { RestClient, isGone, loadClientConfig } from '../../../src/runtime/client/index.js';
import { TransportError } from '../../../src/runtime/client/errors/api-error.js';
import { type RawWatchEvent } from '../../../src/runtime/client/rest/rest-client.js';

// Watch framing cases the real apiserver does not produce on demand, from a server over real sockets.
let server: http.Server;
let base: string;
const bigValue = 'x'.repeat(2 * 1024 * 1024);

function line(type: string, object: unknown): Buffer {
  return Buffer.from(JSON.stringify({ type, object }) + '\n', 'utf8');
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    const path = new URL(req.url!, 'http://x').pathname;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (path === '/utf8') {
      // Every byte in its own write, so each multi-byte character is split across chunks.
      const bytes = line('ADDED', { metadata: { name: 'a' }, data: { greeting: 'héllo wörld 日本 🚀' } });
      let i = 0;
      const next = (): void => {
        if (i < bytes.length) {
          res.write(bytes.subarray(i, ++i), () => setImmediate(next));
        } else res.end();
      };
      next();
    } else if (path === '/long') {
      const bytes = Buffer.concat([
        line('ADDED', { metadata: { name: 'big' }, data: { v: bigValue } }),
        line('DELETED', { metadata: { name: 'big' } }),
      ]);
      for (let i = 0; i < bytes.length; i += 16 * 1024) res.write(bytes.subarray(i, i + 16 * 1024));
      res.end();
    } else if (path === '/managed') {
      // Several events in one write, then one split across writes, each with managedFields to cut.
      const event = (name: string): Buffer =>
        line('ADDED', {
          metadata: { name, managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }] },
          data: { greeting: `hé ${name} 日本` },
        });
      res.write(Buffer.concat([event('a'), event('b'), Buffer.from('\r\n'), event('c')]));
      const split = Buffer.concat([event('d'), event('e')]);
      res.write(split.subarray(0, 30));
      res.write(split.subarray(30, 70));
      res.end(split.subarray(70));
    } else if (path === '/error-500') {
      res.write(line('ADDED', { metadata: { name: 'a' } }));
      res.end(
        line('ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 500,
          reason: 'InternalError',
          message: 'etcd is sad',
        }),
      );
    } else {
      // Ends cleanly in the middle of an event.
      res.write(line('ADDED', { metadata: { name: 'a' } }));
      res.end('{"type":"MODIFIED","object":{"metadata":');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

type Cached = { metadata?: Record<string, unknown>; data?: Record<string, string> };

async function collect(
  path: string,
  options: { omitManagedFields?: boolean } = {},
): Promise<{ events: RawWatchEvent<Cached>[]; error?: unknown }> {
  const c = new RestClient(loadClientConfig({ server: base, env: {} }), { qps: Infinity });
  const events: RawWatchEvent<Cached>[] = [];
  try {
    for await (const e of c.watch<Cached>(path, {}, options)) events.push(e);
    return { events };
  } catch (error) {
    return { events, error };
  } finally {
    c.close();
  }
}

describe('watch stream framing', () => {
  it('decodes multi-byte UTF-8 characters split across chunks', async () => {
    const { events, error } = await collect('/utf8');
    expect(error).toBeUndefined();
    expect(events.map((e) => e.object.data?.greeting)).toEqual(['héllo wörld 日本 🚀']);
  });

  it('decodes a 2 MiB event arriving in many chunks, then the next one', async () => {
    const { events, error } = await collect('/long');
    expect(error).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    expect(events[0]!.object.data?.v).toHaveLength(bigValue.length);
  });

  it('cuts managedFields from events that share a chunk or span several, leaving the rest intact', async () => {
    const { events, error } = await collect('/managed', { omitManagedFields: true });
    expect(error).toBeUndefined();
    expect(events.map((e) => [e.object.metadata, e.object.data?.greeting])).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((name) => [{ name }, `hé ${name} 日本`]),
    );
    const kept = await collect('/managed');
    expect(kept.events.map((e) => (e.object.metadata?.managedFields as unknown[]).length)).toEqual([1, 1, 1, 1, 1]);
  });

  it('throws an ERROR event with another code as an ApiError that is not isGone', async () => {
    const { events, error } = await collect('/error-500');
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(500);
    expect(isGone(error)).toBe(false);
  });

  it('reports a stream that ends in the middle of an event as a TransportError, not as a normal end', async () => {
    const { events, error } = await collect('/truncated');
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    expect(error).toBeInstanceOf(TransportError);
  });
});
