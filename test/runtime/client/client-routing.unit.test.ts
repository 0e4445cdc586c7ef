import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { isNotFound, type KubernetesObject, type ResourceType } from '../../../src/runtime/index.js';
import { coreV1ConfigMapType } from '../../../src/runtime/builtin/index.js';
import { ApiClient } from '../../../src/runtime/client/client.js';
import { Indexer } from '../../../src/runtime/cache/indexer.js';
import { Lister } from '../../../src/runtime/cache/lister.js';
import { type Informer } from '../../../src/runtime/cache/informer.js';
import type { ConfigMap } from '../../../src/api/index.js';
import { CacheReader, type CacheSource } from '../../../src/runtime/cache/cache-reader.js';

// Where the manager's client sends each call: reads of cached kinds to the informer's store,
// everything else to the apiserver (here an in-memory stand-in that records what it is sent).
// The same routing against a real apiserver is in test/runtime/controller/manager-client.live.test.ts.
let server: http.Server;
let base: string;
const sent: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      sent.push(`${req.method} ${url.pathname}${url.search}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.method === 'GET' && url.pathname.endsWith('/configmaps')) {
        res.end(
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMapList',
            metadata: { resourceVersion: '9' },
            items: [cm('ns', 'live')],
          }),
        );
      } else res.end(JSON.stringify(cm('ns', url.pathname.split('/').at(-1)!, 'from-apiserver')));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  sent.length = 0;
});

function cm(namespace: string, name: string, value = 'from-cache', labels: Record<string, string> = {}): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace, name, labels, resourceVersion: '1' },
    data: { value },
  };
}

/** An informer stand-in over a real Indexer and Lister; `sync()` completes its first list. */
class FakeInformer {
  readonly indexer = new Indexer<KubernetesObject>();
  synced = false;
  lastSyncResourceVersion = '42';
  readonly name = 'ConfigMap.core';
  readonly lister = new Lister<KubernetesObject>(this.indexer, undefined, this);
  private waiters: Array<() => void> = [];
  hasSynced(): boolean {
    return this.synced;
  }
  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
  sync(): void {
    this.synced = true;
    for (const w of this.waiters.splice(0)) w();
  }
}

function setup(options: { started?: boolean; stopped?: boolean; uncached?: ResourceType[] } = {}) {
  const rest = new RestClient(loadClientConfig({ server: base, env: {} }));
  const informer = new FakeInformer();
  informer.indexer.upsert(cm('ns', 'a', 'from-cache', { tier: 'web' }));
  informer.indexer.upsert(cm('ns', 'b', 'from-cache', { tier: 'db' }));
  informer.indexer.upsert(cm('other', 'c'));
  const informersAsked: string[] = [];
  const source: CacheSource = {
    informerFor: <T extends KubernetesObject>(type: ResourceType<T>) => {
      informersAsked.push(type.kind);
      return informer as unknown as Informer<T>;
    },
    informersStarted: options.started ?? true,
    cacheStopped: options.stopped ?? false,
    isUncached: (type) => (options.uncached ?? []).some((t) => t.resource === type.resource && t.group === type.group),
    live: new ApiClient(rest),
  };
  const client = new ApiClient(rest, new CacheReader(source));
  return { client, informer, informersAsked, rest };
}

describe('manager client routing', () => {
  it('reads a watched kind from the cache without a request, as a copy', async () => {
    const { client, informer, rest } = setup();
    informer.sync();
    const got = await client.get(coreV1ConfigMapType, { namespace: 'ns', name: 'a' });
    expect(got.data).toEqual({ value: 'from-cache' });
    got.data!.value = 'changed by the reconcile';
    expect((await client.get(coreV1ConfigMapType, { namespace: 'ns', name: 'a' })).data).toEqual({
      value: 'from-cache',
    });
    expect(sent).toEqual([]);
    rest.close();
  });

  it('lists from the cache by namespace and label selector, with the cache resourceVersion', async () => {
    const { client, informer, rest } = setup();
    informer.sync();
    const list = await client.list(coreV1ConfigMapType, { namespace: 'ns', labelSelector: 'tier in (web)' });
    expect(list.items.map((o) => o.metadata?.name)).toEqual(['a']);
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '42' } });
    expect((await client.list(coreV1ConfigMapType)).items).toHaveLength(3);
    expect(sent).toEqual([]);
    rest.close();
  });

  it('answers a missing cached object with a NotFound ApiError', async () => {
    const { client, informer, rest } = setup();
    informer.sync();
    const err = await client.get(coreV1ConfigMapType, { namespace: 'ns', name: 'gone' }).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(sent).toEqual([]);
    rest.close();
  });

  it('fails reads once the cache has stopped, without asking the apiserver; live reads still go', async () => {
    const { client, informer, rest } = setup({ started: false, stopped: true });
    informer.sync();
    const key = { namespace: 'ns', name: 'a' };
    await expect(client.get(coreV1ConfigMapType, key)).rejects.toThrow(
      'cannot read ConfigMap from the cache: the manager has stopped (pass { live: true } to read from the apiserver)',
    );
    await expect(client.list(coreV1ConfigMapType)).rejects.toThrow(/the manager has stopped/);
    expect(sent).toEqual([]);
    await client.get(coreV1ConfigMapType, key, { live: true }).catch(() => undefined);
    expect(sent.length).toBe(1);
    rest.close();
  });

  it('makes the first read of a kind start its informer and wait for it to sync', async () => {
    const { client, informer, informersAsked, rest } = setup();
    let done = false;
    const read = client.get(coreV1ConfigMapType, { namespace: 'ns', name: 'b' }).then((o) => {
      done = true;
      return o;
    });
    await new Promise((r) => setImmediate(r));
    expect(informersAsked).toEqual(['ConfigMap']);
    expect(done).toBe(false);
    informer.sync();
    expect((await read).metadata?.name).toBe('b');
    expect(sent).toEqual([]);
    rest.close();
  });

  const liveCases = [
    { name: 'live: true', setupOptions: {}, readOptions: { live: true } },
    { name: 'an uncached kind', setupOptions: { uncached: [coreV1ConfigMapType] }, readOptions: {} },
    { name: 'a manager not started yet', setupOptions: { started: false }, readOptions: {} },
  ];
  for (const { name, setupOptions, readOptions } of liveCases) {
    it(`reads from the apiserver for ${name}`, async () => {
      const { client, informer, informersAsked, rest } = setup(setupOptions);
      informer.sync();
      expect((await client.get(coreV1ConfigMapType, { namespace: 'ns', name: 'a' }, readOptions)).data).toEqual({
        value: 'from-apiserver',
      });
      expect(
        (await client.list(coreV1ConfigMapType, { namespace: 'ns', ...readOptions })).items.map(
          (o) => o.metadata?.name,
        ),
      ).toEqual(['live']);
      expect(sent).toEqual([
        'GET /api/v1/namespaces/ns/configmaps/a',
        'GET /api/v1/namespaces/ns/configmaps?limit=500',
      ]);
      expect(informersAsked).toEqual([]);
      rest.close();
    });
  }

  it('refuses a field selector on a cached list instead of ignoring it', async () => {
    const { client, informer, rest } = setup();
    informer.sync();
    await expect(client.list(coreV1ConfigMapType, { fieldSelector: 'metadata.name=a' })).rejects.toThrow(
      /field selectors are not served from the cache/,
    );
    rest.close();
  });

  it('sends every write to the apiserver', async () => {
    const { client, informer, rest } = setup();
    informer.sync();
    const object = cm('ns', 'a');
    await client.create(coreV1ConfigMapType, object);
    await client.update(coreV1ConfigMapType, object);
    await client.patch(
      coreV1ConfigMapType,
      { namespace: 'ns', name: 'a' },
      { type: 'merge', patch: { data: { x: 'y' } } },
    );
    await client.apply(
      coreV1ConfigMapType,
      { metadata: { namespace: 'ns', name: 'a' }, data: { x: 'y' } },
      { fieldManager: 'test', force: true },
    );
    await client.status().update(coreV1ConfigMapType, object);
    await client.delete(coreV1ConfigMapType, { namespace: 'ns', name: 'a' });
    await client.deleteAllOf(coreV1ConfigMapType, { namespace: 'ns', labelSelector: 'tier=web' });
    expect(sent).toEqual([
      'POST /api/v1/namespaces/ns/configmaps',
      'PUT /api/v1/namespaces/ns/configmaps/a',
      'PATCH /api/v1/namespaces/ns/configmaps/a',
      'PATCH /api/v1/namespaces/ns/configmaps/a?fieldManager=test&force=true',
      'PUT /api/v1/namespaces/ns/configmaps/a/status',
      'DELETE /api/v1/namespaces/ns/configmaps/a',
      'DELETE /api/v1/namespaces/ns/configmaps?labelSelector=tier%3Dweb',
    ]);
    rest.close();
  });
});
