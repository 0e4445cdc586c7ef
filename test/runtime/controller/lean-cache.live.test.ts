// Lean caches against a real kube-apiserver: a controller that owns ConfigMaps for their metadata
// only is woken by their changes while its cache holds no `data`, and per-kind cache settings
// (byObject) keep objects outside a selector or namespace out of the cache, saying so on a read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestRequest } from '../../../src/runtime/client/rest/rest-client.js';
import { CacheScopeError } from '../../../src/runtime/cache/index.js';
import {
  Manager,
  isNotFound,
  setControllerReference,
  silentLogger,
  type Logger,
  type Request,
} from '../../../src/runtime/index.js';
import { RestClient, createClient, loadClientConfig, metadataOnly } from '../../../src/runtime/client/index.js';
import {
  coreV1ConfigMapType,
  coreV1NamespaceType,
  coreV1SecretType,
  coreV1ServiceAccountType,
  coreV1ServiceType,
} from '../../../src/runtime/builtin/index.js';
import {
  freshNamespace,
  restFor,
  leaseTestControlPlane,
  type LeasedControlPlane,
  waitFor,
  widgetResource,
} from './helpers.js';

/** A RestClient that records the Accept header of every request and watch it opens. */
class AcceptRecordingRestClient extends RestClient {
  readonly accepts: string[] = [];
  override request<T>(req: RestRequest): Promise<T> {
    if (req.path.includes('/configmaps')) this.accepts.push(req.accept ?? 'application/json');
    return super.request<T>(req);
  }
  override watch<T>(
    path: string,
    query?: Record<string, string | number | boolean | undefined>,
    options?: { signal?: AbortSignal; accept?: string },
  ) {
    if (path.includes('/configmaps')) this.accepts.push(`watch ${options?.accept ?? 'application/json'}`);
    return super.watch<T>(path, query, options);
  }
}

let plane: LeasedControlPlane;
let admin: RestClient;

beforeAll(async () => {
  plane = await leaseTestControlPlane();
  admin = restFor(plane);
});

afterAll(async () => {
  admin?.close();
  await plane?.release();
});

/** Starts `manager`; the returned function stops it. */
async function run(manager: Manager): Promise<() => Promise<void>> {
  const running = manager.start();
  await waitFor(() => manager.informersStarted);
  return async () => {
    await manager.stop();
    await running.catch(() => undefined);
  };
}

const bigData = { payload: 'x'.repeat(1024) };

describe('owns(type, { metadataOnly: true })', () => {
  it('wakes the owner on a change of an owned ConfigMap while the cache holds its metadata only', async () => {
    const ns = await freshNamespace(admin, 'meta');
    const api = createClient(admin);
    const rest = new AcceptRecordingRestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
    const manager = new Manager({ rest, metricsBindAddress: '0', healthProbeBindAddress: '0', logger: silentLogger });
    const reconciled: Request[] = [];
    manager
      .controller('widget')
      .for(widgetResource)
      .owns(coreV1ConfigMapType, {
        metadataOnly: true,
        // Predicates see metadata only: the compiler knows there is no `data`.
        predicates: [{ update: (_old, cm) => cm.metadata.labels?.['ignore'] !== 'yes' }],
      })
      .complete((request) => {
        reconciled.push(request);
      });
    const widget = await api.create(widgetResource, { metadata: { name: 'w', namespace: ns }, spec: { size: 1 } });
    await api.create(
      coreV1ConfigMapType,
      setControllerReference(widget, { metadata: { name: 'owned', namespace: ns }, data: bigData }),
    );
    const stop = await run(manager);
    try {
      await waitFor(() => reconciled.length > 0);
      const informer = manager.informerFor(metadataOnly(coreV1ConfigMapType));
      await waitFor(() => informer.indexer.list().some((cm) => cm.metadata.name === 'owned'));
      const before = reconciled.length;
      await api.patch(
        coreV1ConfigMapType,
        { namespace: ns, name: 'owned' },
        {
          type: 'merge',
          patch: { data: { payload: 'changed' }, metadata: { labels: { touched: 'yes' } } },
        },
      );
      await waitFor(() => reconciled.length > before);
      expect(reconciled.at(-1)).toEqual({ namespace: ns, name: 'w' });

      // What is cached is metadata: no data, no managedFields, the apiserver's PartialObjectMetadata.
      for (const cached of informer.indexer.list()) {
        expect(cached).not.toHaveProperty('data');
        expect(cached.kind).toBe('PartialObjectMetadata');
        expect(cached.metadata.managedFields).toBeUndefined();
      }
      expect(rest.accepts).toContain('watch application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1');
      // The cache fills from a streaming list (a watch) where the apiserver serves one, else from
      // pages: whichever it was, it asked for metadata only.
      expect(rest.accepts.every((accept) => accept.includes('PartialObjectMetadata'))).toBe(true);

      // A cached read through the metadata-only descriptor returns metadata only, typed so.
      const meta = await manager.client.get(metadataOnly(coreV1ConfigMapType), { namespace: ns, name: 'owned' });
      expect(meta.metadata.labels).toEqual({ touched: 'yes' });
      // @ts-expect-error -- a PartialObjectMetadata has no data
      expect(meta.data).toBeUndefined();
      expect(manager.cluster.informers.map((i) => i.name)).not.toContain('ConfigMap.core');

      // The full kind may be cached beside it, under its own key: reading it starts a full informer.
      const full = await manager.client.get(coreV1ConfigMapType, { namespace: ns, name: 'owned' });
      expect(full.data).toEqual({ payload: 'changed' });
      expect(manager.cluster.informers.map((i) => i.name)).toEqual(
        expect.arrayContaining(['ConfigMap.core', 'ConfigMap.core/metadata']),
      );
      expect(informer.indexer.list().every((cm) => !('data' in cm))).toBe(true);
    } finally {
      await stop();
      rest.close();
    }
  });

  it('fills a metadata-only cache from pages as well, when the streaming list is off', async () => {
    const ns = await freshNamespace(admin, 'metapages');
    const api = createClient(admin);
    const rest = new AcceptRecordingRestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
    const manager = new Manager({
      rest,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logger: silentLogger,
      informerDefaults: { streamingList: false },
    });
    manager
      .controller('widget')
      .for(widgetResource)
      .owns(coreV1ConfigMapType, { metadataOnly: true })
      .complete(() => undefined);
    await api.create(coreV1ConfigMapType, { metadata: { name: 'paged', namespace: ns }, data: bigData });
    const stop = await run(manager);
    try {
      const informer = manager.informerFor(metadataOnly(coreV1ConfigMapType));
      await waitFor(() => informer.indexer.list().some((cm) => cm.metadata.name === 'paged'));
      for (const cached of informer.indexer.list()) {
        expect(cached).not.toHaveProperty('data');
        expect(cached.kind).toBe('PartialObjectMetadata');
      }
      expect(rest.accepts).toContain('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
      expect(rest.accepts.every((accept) => accept.includes('PartialObjectMetadata'))).toBe(true);
    } finally {
      await stop();
    }
  });

  it('patches and deletes through a metadata-only descriptor, and refuses to create or update with metadata alone', async () => {
    const ns = await freshNamespace(admin, 'meta-write');
    const api = createClient(admin);
    await api.create(coreV1ConfigMapType, { metadata: { name: 'cm', namespace: ns }, data: bigData });
    const meta = metadataOnly(coreV1ConfigMapType);
    const patched = await api.patch(
      meta,
      { namespace: ns, name: 'cm' },
      {
        type: 'merge',
        patch: { metadata: { labels: { a: 'b' } } },
      },
    );
    expect(patched.metadata.labels).toEqual({ a: 'b' });
    expect(patched).not.toHaveProperty('data');
    // The data is still there: only the answer was metadata.
    expect((await api.get(coreV1ConfigMapType, { namespace: ns, name: 'cm' })).data).toEqual(bigData);
    await expect(api.update(meta, patched)).rejects.toThrow(/cannot update through a metadata-only descriptor/);
    await expect(api.create(meta, { metadata: { name: 'new', namespace: ns } })).rejects.toThrow(
      /cannot create through a metadata-only descriptor/,
    );
    const listed = await api.list(meta, { namespace: ns });
    expect(listed.items.map((cm) => cm.metadata.name)).toEqual(['cm']);
    expect(listed.items[0]).not.toHaveProperty('data');
    // An empty list of metadata comes from the apiserver as `items: null`; the client makes it [].
    const empty = await freshNamespace(admin, 'meta-empty');
    expect((await api.list(meta, { namespace: empty })).items).toEqual([]);
    await api.delete(meta, { namespace: ns, name: 'cm' });
    await waitFor(async () =>
      isNotFound(await api.get(coreV1ConfigMapType, { namespace: ns, name: 'cm' }).catch((e: unknown) => e)),
    );
  });
});

describe('byObject: per-kind cache settings', () => {
  it('caches only what a kind selects: outside a label selector is "not found" that names the selector; outside its namespace a CacheScopeError', async () => {
    const ns = await freshNamespace(admin, 'byobject');
    const other = await freshNamespace(admin, 'byobject-other');
    const api = createClient(admin);
    const manager = new Manager({
      rest: restFor(plane),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logger: silentLogger,
      byObject: [
        {
          type: coreV1ConfigMapType,
          labelSelector: { cache: 'yes' },
          // Drops what this operator never reads.
          transform: (cm) => ({ ...cm, data: undefined, binaryData: undefined }),
        },
        { type: coreV1SecretType, namespace: other },
        { type: coreV1ServiceAccountType, cacheManagedFields: true },
      ],
    });
    await api.apply(
      coreV1ConfigMapType,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'in', namespace: ns, labels: { cache: 'yes' } },
        data: bigData,
      },
      { fieldManager: 'lean-cache-test' },
    );
    await api.create(coreV1ConfigMapType, { metadata: { name: 'out', namespace: ns }, data: bigData });
    await api.create(coreV1SecretType, { metadata: { name: 's', namespace: other }, stringData: { k: 'v' } });
    await api.create(coreV1SecretType, { metadata: { name: 's', namespace: ns }, stringData: { k: 'v' } });
    // Written by server-side apply, so both carry managedFields the cache may keep or drop.
    await api.apply(
      coreV1ServiceAccountType,
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: ns, labels: { a: 'b' } } },
      { fieldManager: 'lean-cache-test' },
    );
    const stop = await run(manager);
    try {
      const client = manager.client;
      const inside = await client.get(coreV1ConfigMapType, { namespace: ns, name: 'in' });
      expect(inside.metadata?.labels).toEqual({ cache: 'yes' });
      expect(inside.data).toBeUndefined();
      expect(inside.metadata?.managedFields).toBeUndefined();
      const insideLive = await client.get(coreV1ConfigMapType, { namespace: ns, name: 'in' }, { live: true });
      expect(insideLive.metadata?.managedFields?.length).toBeGreaterThan(0);

      const outside = await client.get(coreV1ConfigMapType, { namespace: ns, name: 'out' }).catch((e: unknown) => e);
      expect(isNotFound(outside)).toBe(true);
      expect((outside as Error).message).toContain('which holds only ConfigMap objects matching labels cache=yes');
      expect((await client.list(coreV1ConfigMapType, { namespace: ns })).items.map((cm) => cm.metadata?.name)).toEqual([
        'in',
      ]);
      expect(
        manager
          .informerFor(coreV1ConfigMapType)
          .indexer.list()
          .map((cm) => cm.metadata?.name),
      ).toEqual(['in']);
      // The apiserver still has it.
      expect((await client.get(coreV1ConfigMapType, { namespace: ns, name: 'out' }, { live: true })).data).toEqual(
        bigData,
      );

      expect((await client.get(coreV1SecretType, { namespace: other, name: 's' })).data).toEqual({ k: 'dg==' });
      await expect(client.get(coreV1SecretType, { namespace: ns, name: 's' })).rejects.toBeInstanceOf(CacheScopeError);

      // managedFields kept for the one kind that asks, dropped elsewhere.
      expect(
        (await client.get(coreV1ServiceAccountType, { namespace: ns, name: 'sa' })).metadata?.managedFields,
      ).not.toHaveLength(0);

      // The selector follows the kind's metadata-only view too.
      const meta = await client.list(metadataOnly(coreV1ConfigMapType), { namespace: ns });
      expect(meta.items.map((cm) => cm.metadata.name)).toEqual(['in']);

      // An object that comes to match the selector enters the cache; one that stops matching leaves it.
      await api.patch(
        coreV1ConfigMapType,
        { namespace: ns, name: 'out' },
        { type: 'merge', patch: { metadata: { labels: { cache: 'yes' } } } },
      );
      await api.patch(
        coreV1ConfigMapType,
        { namespace: ns, name: 'in' },
        { type: 'merge', patch: { metadata: { labels: { cache: 'no' } } } },
      );
      await waitFor(() => {
        const names = manager
          .informerFor(coreV1ConfigMapType)
          .indexer.list()
          .map((cm) => cm.metadata?.name);
        return names.length === 1 && names[0] === 'out';
      });
    } finally {
      await stop();
    }
  });

  it('caches several namespaces of a kind, each with its own selector, behind one view; a read elsewhere names them', async () => {
    const web = await freshNamespace(admin, 'byobject-web');
    const all = await freshNamespace(admin, 'byobject-all');
    const elsewhere = await freshNamespace(admin, 'byobject-elsewhere');
    const api = createClient(admin);
    const cm = (namespace: string, name: string, labels?: Record<string, string>) =>
      api.create(coreV1ConfigMapType, { metadata: { name, namespace, labels }, data: { k: 'v' } });
    await cm(web, 'front', { tier: 'web' });
    await cm(web, 'db', { tier: 'db' });
    await cm(all, 'any');
    await cm(elsewhere, 'other');
    const manager = new Manager({
      rest: restFor(plane),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logger: silentLogger,
      byObject: [{ type: coreV1ConfigMapType, namespaces: { [web]: { labelSelector: { tier: 'web' } }, [all]: {} } }],
    });
    const stop = await run(manager);
    try {
      const client = manager.client;
      const names = (list: { items: Array<{ metadata?: { namespace?: string; name?: string } }> }) =>
        list.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();
      // A list without a namespace spans both.
      expect(names(await client.list(coreV1ConfigMapType))).toEqual([`${all}/any`, `${web}/front`].sort());
      expect(names(await client.list(coreV1ConfigMapType, { namespace: web }))).toEqual([`${web}/front`]);
      expect((await client.get(coreV1ConfigMapType, { namespace: all, name: 'any' })).data).toEqual({ k: 'v' });
      // Outside the namespace's own selector: "not found" naming that selector.
      const db = await client.get(coreV1ConfigMapType, { namespace: web, name: 'db' }).catch((e: unknown) => e);
      expect(isNotFound(db)).toBe(true);
      expect((db as Error).message).toContain('matching labels tier=web');
      // Outside the namespaces: the cache cannot tell, and says which namespaces it holds.
      const other = await client
        .get(coreV1ConfigMapType, { namespace: elsewhere, name: 'other' })
        .catch((e: unknown) => e);
      expect(other).toBeInstanceOf(CacheScopeError);
      expect((other as Error).message).toContain(`the cache holds namespaces "${web}", "${all}" only`);
      await expect(client.list(coreV1ConfigMapType, { namespace: elsewhere })).rejects.toBeInstanceOf(CacheScopeError);

      // Each namespace is watched: changes in both reach the one cache, the other namespace's do not.
      await cm(elsewhere, 'later');
      await cm(web, 'front2', { tier: 'web' });
      await cm(all, 'any2');
      const informer = manager.informerFor(coreV1ConfigMapType);
      await waitFor(() => informer.indexer.size === 4);
      expect(informer.indexer.list().filter((o) => o.metadata?.namespace === elsewhere)).toEqual([]);
      expect(informer.stats).toMatchObject({ objects: 4, synced: true, relists: 0 });
    } finally {
      await stop();
    }
  });

  it('warns once at start when the cache of a kind holds nothing, naming the kind and its selector or namespace', async () => {
    const empty = await freshNamespace(admin, 'byobject-empty');
    const full = await freshNamespace(admin, 'byobject-full');
    const api = createClient(admin);
    await api.create(coreV1SecretType, { metadata: { name: 's', namespace: full, labels: { team: 'a' } } });
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (message) => void warnings.push(message),
      error: () => {},
      child: () => logger,
    };
    const manager = new Manager({
      rest: restFor(plane),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logger,
      byObject: [
        // A typo in a label: nothing matches.
        { type: coreV1ConfigMapType, labelSelector: { 'app.kubernetes.io/nmae': 'web' } },
        // A namespace with no Service in it.
        { type: coreV1ServiceType, namespace: empty },
        // Matches its one object: no warning.
        { type: coreV1SecretType, labelSelector: { team: 'a' }, namespaces: [full] },
      ],
    });
    const stop = await run(manager);
    try {
      await manager.client.list(coreV1ConfigMapType);
      await manager.client.list(metadataOnly(coreV1ConfigMapType));
      await manager.client.list(coreV1ServiceType, { namespace: empty });
      expect((await manager.client.list(coreV1SecretType)).items).toHaveLength(1);
      await waitFor(() => warnings.filter((w) => w.startsWith('the cache of')).length >= 2);
      // Give a late (wrong) warning of the Secrets or of the metadata-only view a moment to show.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(warnings.filter((w) => w.startsWith('the cache of')).sort()).toEqual([
        'the cache of ConfigMap holds no object: nothing matches labels app.kubernetes.io/nmae=web (check the byObject settings of ConfigMap)',
        `the cache of Service holds no object: nothing matches namespace "${empty}" (check the byObject settings of Service)`,
      ]);
    } finally {
      await stop();
    }
  });

  it('refuses settings that could only go wrong later, naming the kind', () => {
    const make = (byObject: ConstructorParameters<typeof Manager>[0]): Manager =>
      new Manager({ metricsBindAddress: '0', healthProbeBindAddress: '0', logger: silentLogger, ...byObject });
    expect(() => make({ byObject: [{ type: coreV1NamespaceType, namespace: 'a' }] })).toThrow(
      'byObject Namespace (v1): namespace "a" given for a cluster-scoped kind',
    );
    expect(() =>
      make({ byObject: [{ type: coreV1ConfigMapType }, { type: coreV1ConfigMapType, namespace: 'a' }] }),
    ).toThrow('byObject ConfigMap (v1): the kind is named twice');
    expect(() => make({ byObject: [{ type: coreV1ConfigMapType, labelSelector: 'app in (a' }] })).toThrow(
      /byObject ConfigMap \(v1\): labelSelector "app in \(a"/,
    );
    expect(() =>
      make({ uncachedTypes: [coreV1SecretType], byObject: [{ type: coreV1SecretType, namespace: 'a' }] }),
    ).toThrow('byObject Secret (v1): the kind is in uncachedTypes');
    expect(() => make({ byObject: [{ type: coreV1NamespaceType, namespaces: ['a'] }] })).toThrow(
      'byObject Namespace (v1): namespaces given for a cluster-scoped kind',
    );
    expect(() => make({ byObject: [{ type: coreV1ConfigMapType, namespace: 'a', namespaces: ['b'] }] })).toThrow(
      'byObject ConfigMap (v1): both namespace and namespaces given',
    );
    expect(() => make({ byObject: [{ type: coreV1ConfigMapType, namespaces: [] }] })).toThrow(
      'byObject ConfigMap (v1): namespaces is empty',
    );
    expect(() => make({ byObject: [{ type: coreV1ConfigMapType, namespaces: ['a', 'a'] }] })).toThrow(
      'byObject ConfigMap (v1): namespace "a" is named twice in namespaces',
    );
    expect(() =>
      make({ byObject: [{ type: coreV1ConfigMapType, namespaces: { a: { labelSelector: 'x in (' } } }] }),
    ).toThrow(/byObject ConfigMap \(v1\) in namespace "a": labelSelector "x in \("/);
  });
});
