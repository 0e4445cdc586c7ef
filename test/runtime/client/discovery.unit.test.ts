import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { DiscoveryClient } from '../../../src/runtime/client/discovery/discovery-client.js';
import { NoMatchError, RestMapper } from '../../../src/runtime/client/discovery/rest-mapper.js';

// A server that only speaks per-group-version discovery (no aggregated discovery), as older
// apiservers and some aggregated API servers do. The real apiserver path is in client.test.ts.
let server: http.Server;
let rest: RestClient;
let widgetsServed = false;
let requests = 0;

const bodies: Record<string, unknown> = {
  '/api': { kind: 'APIVersions', versions: ['v1'] },
  '/apis': {
    kind: 'APIGroupList',
    groups: [
      {
        name: 'apps',
        versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      },
    ],
  },
  '/api/v1': {
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [
      {
        name: 'namespaces',
        singularName: 'namespace',
        namespaced: false,
        kind: 'Namespace',
        verbs: ['get', 'list'],
        shortNames: ['ns'],
      },
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get'] },
      { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
    ],
  },
  '/apis/apps/v1': {
    kind: 'APIResourceList',
    groupVersion: 'apps/v1',
    resources: [
      {
        name: 'deployments',
        singularName: 'deployment',
        namespaced: true,
        kind: 'Deployment',
        verbs: ['get'],
        shortNames: ['deploy'],
      },
      { name: 'deployments/scale', singularName: '', namespaced: true, kind: 'Scale', verbs: ['get'] },
    ],
  },
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests++;
    const url = new URL(req.url!, 'http://x').pathname;
    let body = bodies[url];
    if (url === '/apis' && widgetsServed) {
      body = {
        kind: 'APIGroupList',
        groups: [
          ...(bodies['/apis'] as { groups: unknown[] }).groups,
          { name: 'late.example.com', versions: [{ version: 'v1' }], preferredVersion: { version: 'v1' } },
        ],
      };
    }
    if (url === '/apis/late.example.com/v1')
      body = { kind: 'APIResourceList', resources: [{ name: 'widgets', namespaced: false, kind: 'Widget' }] };
    if (!body) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  rest = new RestClient(
    loadClientConfig({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, env: {} }),
  );
});
afterAll(async () => {
  rest.close();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('discovery without aggregated discovery', () => {
  it('falls back to per-group-version lists and folds subresources into their parents', async () => {
    const snapshot = await new DiscoveryClient(rest).discover();
    expect(snapshot.groups).toEqual([
      { name: '', versions: ['v1'], preferredVersion: 'v1' },
      { name: 'apps', versions: ['v1'], preferredVersion: 'v1' },
    ]);
    expect(
      snapshot.resources.map(
        (r) => `${r.group}/${r.version}/${r.resource}:${r.kind}:${r.namespaced}:${r.subresources.join('+')}`,
      ),
    ).toEqual([
      '/v1/namespaces:Namespace:false:',
      '/v1/pods:Pod:true:status',
      'apps/v1/deployments:Deployment:true:scale',
    ]);
  });

  it('maps kinds and short names, caches, and refreshes once on a miss', async () => {
    const mapper = new RestMapper(new DiscoveryClient(rest));
    expect(await mapper.mapping({ group: 'apps', kind: 'Deployment' })).toMatchObject({
      resource: 'deployments',
      namespaced: true,
    });
    const before = requests;
    expect((await mapper.resourceFor({ group: '', resource: 'ns' })).kind).toBe('Namespace');
    expect(requests).toBe(before); // served from the cache

    await expect(mapper.mapping({ group: 'late.example.com', kind: 'Widget' })).rejects.toBeInstanceOf(NoMatchError);
    widgetsServed = true;
    expect(await mapper.mapping({ group: 'late.example.com', kind: 'Widget' })).toMatchObject({
      resource: 'widgets',
      namespaced: false,
    });
    await expect(mapper.mapping({ group: 'apps', kind: 'Deployment', version: 'v2' })).rejects.toBeInstanceOf(
      NoMatchError,
    );
  });
});
