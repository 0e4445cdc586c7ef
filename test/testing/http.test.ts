import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiServerTransport } from '../../src/testing/http.js';

describe('ApiServerTransport', () => {
  let server: Server;
  let origin: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end('{"kind":"APIVersions"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends requests under the path prefix of the server URL, query included', async () => {
    seen.length = 0;
    const transport = new ApiServerTransport(`${origin}/k8s/clusters/c-1`, {});
    expect(await transport.json('GET', '/api?timeout=5s')).toEqual({ kind: 'APIVersions' });
    const trailing = new ApiServerTransport(`${origin}/proxy/`, {});
    await trailing.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    const bare = new ApiServerTransport(origin, {});
    await bare.request('GET', '/readyz');
    expect(seen).toEqual([
      '/k8s/clusters/c-1/api?timeout=5s',
      '/proxy/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      '/readyz',
    ]);
    for (const t of [transport, trailing, bare]) t.close();
  });
});
