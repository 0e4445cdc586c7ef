import { describe, expect, it } from 'vitest';
import type { SharedControlPlane } from '../../helpers/shared-control-plane.js';
import type { KubernetesObject, ObjectList } from '../../../src/runtime/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import type {
  ListOptions,
  ResourceType,
  WatchEvent,
  WatchOptions,
} from '../../../src/runtime/client/resource/options.js';
import type { InformerOptions, ListerWatcher } from '../../../src/runtime/cache/informer.js';
import { coreV1ConfigMapType, coreV1NamespaceType, coreV1SecretType } from '../../../src/runtime/builtin/index.js';
import { Informer, stripManagedFields } from '../../../src/runtime/cache/informer.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import { startControlPlane } from '../../../src/testing/index.js';
import { TcpProxy, freshNamespace, restFor, useTestControlPlane, waitFor } from './helpers.js';

let plane: SharedControlPlane;
let admin: RestClient;
useTestControlPlane((started) => ({ plane, admin } = started));

/** The real client of a kind, recording each request an informer makes: the request log of these tests. */
class RecordingSource implements ListerWatcher<KubernetesObject> {
  readonly requests: string[] = [];
  constructor(private readonly client: ResourceClient<KubernetesObject>) {}

  list(options: ListOptions): Promise<ObjectList<KubernetesObject>> {
    this.requests.push(`list${options.limit ? ` limit=${options.limit}` : ''}${options.continue ? ' continue' : ''}`);
    return this.client.list(options);
  }

  watch(options: WatchOptions): AsyncIterable<WatchEvent<KubernetesObject>> {
    this.requests.push(
      options.sendInitialEvents
        ? `watch sendInitialEvents rv="${options.resourceVersion}" match=${options.resourceVersionMatch} bookmarks=${options.allowWatchBookmarks}`
        : `watch rv=${options.resourceVersion ? 'set' : '""'}`,
    );
    return this.client.watch(options);
  }
}

async function informerOn(
  type: ResourceType,
  namespace: string,
  options: Partial<InformerOptions<KubernetesObject>>,
  server?: string,
) {
  const rest = server ? restFor(plane, server) : admin;
  const source = new RecordingSource(new ResourceClient(rest, type, namespace));
  const informer = new Informer<KubernetesObject>(source, {
    name: type.kind,
    initialBackoffMs: 100,
    maxBackoffMs: 500,
    transform: stripManagedFields,
    ...options,
  });
  informer.start();
  await informer.waitForSync();
  return {
    informer,
    source,
    async close() {
      await informer.stop();
      if (server) rest.close();
    },
  };
}

/** The cache's objects by name, in name order. */
function cached(informer: Informer<KubernetesObject>): Record<string, KubernetesObject> {
  const objects = informer.lister.list().sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
  return Object.fromEntries(objects.map((o) => [o.metadata!.name!, o]));
}

async function serverState(type: ResourceType, namespace: string): Promise<Record<string, string>> {
  const list = await new ResourceClient(admin, type, namespace).list();
  return Object.fromEntries(list.items.map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]));
}

function versions(informer: Informer<KubernetesObject>): Record<string, string> {
  return Object.fromEntries(informer.lister.list().map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]));
}

async function createConfigMaps(namespace: string, count: number): Promise<void> {
  const client = new ResourceClient(admin, coreV1ConfigMapType, namespace);
  for (let i = 0; i < count; i++)
    await client.create({
      metadata: { name: `cm-${String(i).padStart(3, '0')}`, labels: { i: String(i) } },
      data: { value: `v${i}` },
    } as KubernetesObject);
}

describe('informer initial lists against a real apiserver', () => {
  it('fills the cache from one streaming list where it is served, then watches on the same stream', async () => {
    const ns = await freshNamespace(admin, 'stream');
    await createConfigMaps(ns, 23);
    const streamed = await informerOn(coreV1ConfigMapType, ns, { streamingList: true });
    try {
      expect(streamed.source.requests).toEqual(['watch sendInitialEvents rv="" match=NotOlderThan bookmarks=true']);
      expect(streamed.informer.stats).toMatchObject({
        objects: 23,
        relists: 0,
        lastListMethod: 'streaming',
        synced: true,
      });
      expect(streamed.informer.stats.bytes).toBeGreaterThan(23 * 100);
      expect(versions(streamed.informer)).toEqual(await serverState(coreV1ConfigMapType, ns));
      expect(streamed.informer.lastSyncResourceVersion).not.toBe('');

      // After the initial-events-end bookmark, the same stream carries the changes.
      const client = new ResourceClient(admin, coreV1ConfigMapType, ns);
      await client.delete('cm-000');
      await client.patch('cm-001', { type: 'merge', patch: { data: { value: 'changed' } } });
      await createConfigMaps(ns, 0);
      await client.create({ metadata: { name: 'new' }, data: { value: 'n' } } as KubernetesObject);
      await waitFor(
        async () =>
          JSON.stringify(versions(streamed.informer)) === JSON.stringify(await serverState(coreV1ConfigMapType, ns)),
        10_000,
        'cache = server',
      );
      expect(streamed.source.requests).toHaveLength(1);
    } finally {
      await streamed.close();
    }
  });

  it('lists in pages when told to, and both ways fill the cache with the same objects', async () => {
    const ns = await freshNamespace(admin, 'paged');
    await createConfigMaps(ns, 23);
    const paged = await informerOn(coreV1ConfigMapType, ns, { streamingList: false, listPageSize: 10 });
    const streamed = await informerOn(coreV1ConfigMapType, ns, { streamingList: true });
    try {
      expect(paged.source.requests.slice(0, 4)).toEqual([
        'list limit=10',
        'list limit=10 continue',
        'list limit=10 continue',
        'watch rv=set',
      ]);
      expect(paged.informer.stats).toMatchObject({ objects: 23, lastListMethod: 'paginated' });
      expect(streamed.informer.stats.lastListMethod).toBe('streaming');
      // The same objects, apiVersion and kind included (a list leaves them out of its items).
      expect(cached(paged.informer)).toEqual(cached(streamed.informer));
      expect(cached(paged.informer)['cm-007']).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
      expect(paged.informer.stats.bytes).toBe(streamed.informer.stats.bytes);
    } finally {
      await paged.close();
      await streamed.close();
    }
  });

  it('leaves managedFields out before parsing on both ways of listing, when told to', async () => {
    const ns = await freshNamespace(admin, 'omit');
    await createConfigMaps(ns, 12);
    // No transform: what is cached is what the client parsed.
    const keep = (o: KubernetesObject): KubernetesObject => o;
    const options = { transform: keep, omitManagedFields: true };
    const paged = await informerOn(coreV1ConfigMapType, ns, { ...options, streamingList: false, listPageSize: 5 });
    const streamed = await informerOn(coreV1ConfigMapType, ns, { ...options, streamingList: true });
    try {
      expect(paged.informer.stats).toMatchObject({ objects: 12, lastListMethod: 'paginated' });
      expect(streamed.informer.stats).toMatchObject({ objects: 12, lastListMethod: 'streaming' });
      const live = await new ResourceClient(admin, coreV1ConfigMapType, ns).get('cm-003');
      expect((live.metadata as { managedFields?: unknown[] }).managedFields?.length).toBeGreaterThan(0);
      for (const { informer } of [paged, streamed]) {
        const objects = informer.lister.list();
        expect(objects.filter((o) => 'managedFields' in o.metadata!)).toEqual([]);
        expect(cached(informer)['cm-003']).toMatchObject({ data: { value: 'v3' }, metadata: { labels: { i: '3' } } });
      }
      expect(cached(paged.informer)).toEqual(cached(streamed.informer));
    } finally {
      await paged.close();
      await streamed.close();
    }
  });

  it('relists after 410 Gone by streaming again, reporting what was deleted meanwhile', async () => {
    // Secrets: their watch cache is off on this control plane, so compacting etcd expires the watch.
    const ns = await freshNamespace(admin, 'stream-gone');
    const client = new ResourceClient(admin, coreV1SecretType, ns);
    for (const name of ['a', 'b', 'c']) await client.create({ metadata: { name } } as KubernetesObject);
    const proxy = await TcpProxy.start(plane.server);
    const streamed = await informerOn(coreV1SecretType, ns, { streamingList: true }, proxy.url);
    const deleted: string[] = [];
    streamed.informer.addEventHandler({
      onDelete: (o, info) => deleted.push(`${o.metadata!.name} ${info.finalStateUnknown}`),
    });
    try {
      expect(streamed.informer.stats.lastListMethod).toBe('streaming');
      proxy.cut();
      await client.delete('a');
      await client.patch('b', { type: 'merge', patch: { stringData: { v: 'changed' } } });
      await client.create({ metadata: { name: 'while-away' } } as KubernetesObject);
      await plane.compactEtcd();
      proxy.restore();
      await waitFor(() => streamed.informer.stats.relists === 1, 15_000, 'a relist');
      await waitFor(
        async () =>
          JSON.stringify(versions(streamed.informer)) === JSON.stringify(await serverState(coreV1SecretType, ns)),
        10_000,
        'cache = server',
      );
      expect(streamed.informer.stats).toMatchObject({ objects: 3, relists: 1, lastListMethod: 'streaming' });
      const requests = streamed.source.requests;
      expect(requests.filter((r) => r.startsWith('watch sendInitialEvents'))).toHaveLength(2);
      expect(requests.some((r) => r.startsWith('list'))).toBe(false);
      expect(deleted).toEqual(['a true']);
    } finally {
      await streamed.close();
      await proxy.close();
    }
  });
});

describe('informer initial lists against an apiserver without streaming lists', () => {
  it('lists in pages when the stream is refused, and syncs', async () => {
    const old = await startControlPlane({ apiServerArgs: ['--feature-gates=WatchList=false'] });
    const rest = restFor(old);
    try {
      await new ResourceClient(rest, coreV1NamespaceType).create({ metadata: { name: 'refused' } });
      const configMaps = new ResourceClient(rest, coreV1ConfigMapType, 'refused');
      for (let i = 0; i < 12; i++) await configMaps.create({ metadata: { name: `cm-${i}` } } as KubernetesObject);
      const source = new RecordingSource(configMaps);
      const informer = new Informer<KubernetesObject>(source, {
        name: 'ConfigMap',
        streamingList: true,
        listPageSize: 5,
        initialBackoffMs: 100,
      });
      informer.start();
      try {
        await informer.waitForSync();
        await waitFor(() => source.requests.length >= 5, 10_000, 'the watch after the list');
        expect(source.requests.slice(0, 5)).toEqual([
          'watch sendInitialEvents rv="" match=NotOlderThan bookmarks=true',
          'list limit=5',
          'list limit=5 continue',
          'list limit=5 continue',
          'watch rv=set',
        ]);
        expect(informer.stats).toMatchObject({ objects: 12, lastListMethod: 'paginated', relists: 0 });
      } finally {
        await informer.stop();
      }
    } finally {
      rest.close();
      await old.stop();
    }
  }, 120_000);
});
