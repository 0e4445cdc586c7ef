// The manager's one client against a real kube-apiserver: reads of watched kinds come from the
// informer cache (counted at the RestClient), writes and `live` reads go to the apiserver, and
// every verb works on CRDs and built-in kinds alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestRequest } from '../../../src/runtime/client/rest/rest-client.js';
import { CacheScopeError } from '../../../src/runtime/cache/index.js';
import { Manager, finalizer, isConflict, isNotFound, silentLogger, type Client } from '../../../src/runtime/index.js';
import { RestClient, createClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { appsV1DeploymentType, coreV1ConfigMapType, coreV1SecretType } from '../../../src/runtime/builtin/index.js';
import {
  freshNamespace,
  restFor,
  leaseTestControlPlane,
  type LeasedControlPlane,
  waitFor,
  widgetResource,
  type Widget,
} from './helpers.js';

/** A RestClient that records the method and path of every request it sends. */
class CountingRestClient extends RestClient {
  readonly sent: string[] = [];
  override request<T>(req: RestRequest): Promise<T> {
    this.sent.push(`${req.method} ${req.path}`);
    return super.request<T>(req);
  }
  count(method: string, pathEnd: string): number {
    return this.sent.filter((line) => line.startsWith(`${method} `) && line.endsWith(pathEnd)).length;
  }
}

let plane: LeasedControlPlane;
let admin: RestClient;
let rest: CountingRestClient;
let manager: Manager;
let client: Client;
let ns: string;
let running: Promise<void>;

beforeAll(async () => {
  plane = await leaseTestControlPlane();
  admin = restFor(plane);
  ns = await freshNamespace(admin, 'client');
  rest = new CountingRestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
  manager = new Manager({
    rest,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
    uncachedTypes: [coreV1SecretType],
  });
  client = manager.client;
  // Watched before start, as a controller's for() would.
  manager.informerFor(widgetResource);
  await createClient(admin).create(widgetResource, { metadata: { name: 'before', namespace: ns }, spec: { size: 1 } });
  running = manager.start();
  await waitFor(() => manager.informersStarted && manager.informerFor(widgetResource).hasSynced());
});

afterAll(async () => {
  await manager?.stop();
  await running?.catch(() => undefined);
  rest?.close();
  admin?.close();
  await plane?.release();
});

describe("the manager's client", () => {
  it('reads a watched kind from the cache: no GET reaches the apiserver, and a missing object is isNotFound', async () => {
    const before = rest.count('GET', `/namespaces/${ns}/widgets/before`);
    for (let i = 0; i < 20; i++) {
      const widget = await client.get(widgetResource, { namespace: ns, name: 'before' });
      expect(widget.spec?.size).toBe(1);
    }
    expect(rest.count('GET', `/namespaces/${ns}/widgets/before`)).toBe(before);
    const missing = await client.get(widgetResource, { namespace: ns, name: 'nope' }).catch((error: unknown) => error);
    expect(isNotFound(missing)).toBe(true);
    // A cached read hands out a copy: changing it changes nothing in the cache.
    const copy = await client.get(widgetResource, { namespace: ns, name: 'before' });
    copy.spec!.size = 99;
    expect((await client.get(widgetResource, { namespace: ns, name: 'before' })).spec?.size).toBe(1);
    // `live: true` asks the apiserver.
    await client.get(widgetResource, { namespace: ns, name: 'before' }, { live: true });
    expect(rest.count('GET', `/namespaces/${ns}/widgets/before`)).toBe(before + 1);
  });

  it('starts the informer of a kind on its first read and waits for it to sync', async () => {
    await createClient(admin).create(coreV1ConfigMapType, {
      metadata: { name: 'settings', namespace: ns },
      data: { a: '1' },
    });
    const settings = await client.get(coreV1ConfigMapType, { namespace: ns, name: 'settings' });
    expect(settings.data).toEqual({ a: '1' });
    expect(rest.count('GET', `/namespaces/${ns}/configmaps/settings`)).toBe(0);
    expect(manager.informerFor(coreV1ConfigMapType).hasSynced()).toBe(true);
    const listed = await client.list(coreV1ConfigMapType, { namespace: ns });
    expect(listed.kind).toBe('ConfigMapList');
    expect(listed.items.map((c) => c.metadata?.name)).toContain('settings');
    await expect(
      client.list(coreV1ConfigMapType, { namespace: ns, fieldSelector: 'metadata.name=settings' }),
    ).rejects.toThrow(/live: true/);
    const live = await client.list(coreV1ConfigMapType, {
      namespace: ns,
      fieldSelector: 'metadata.name=settings',
      live: true,
    });
    expect(live.items.map((c) => c.metadata?.name)).toEqual(['settings']);
  });

  it('reads uncached kinds from the apiserver', async () => {
    await createClient(admin).create(coreV1SecretType, {
      metadata: { name: 'token', namespace: ns },
      stringData: { t: 'x' },
    });
    const secret = await client.get(coreV1SecretType, { namespace: ns, name: 'token' });
    expect(secret.data?.t).toBe(Buffer.from('x').toString('base64'));
    expect(rest.count('GET', `/namespaces/${ns}/secrets/token`)).toBe(1);
  });

  it('creates, updates (guarded by resourceVersion), patches, applies and deletes', async () => {
    const created = await client.create(widgetResource, {
      metadata: { name: 'w', namespace: ns, labels: { tier: 'a' } },
      spec: { size: 1 },
    });
    const updated = await client.update(widgetResource, { ...created, spec: { size: 2 } });
    expect(updated.spec?.size).toBe(2);
    const stale = await client
      .update(widgetResource, { ...created, spec: { size: 3 } })
      .catch((error: unknown) => error);
    expect(isConflict(stale)).toBe(true);
    const merged = await client.patch(
      widgetResource,
      { namespace: ns, name: 'w' },
      { type: 'merge', patch: { spec: { size: 4 } } },
    );
    expect(merged.spec?.size).toBe(4);
    const json = await client.patch(
      widgetResource,
      { namespace: ns, name: 'w' },
      { type: 'json', operations: [{ op: 'replace', path: '/spec/size', value: 5 }] },
    );
    expect(json.spec?.size).toBe(5);
    const applied = await client.apply(
      widgetResource,
      {
        apiVersion: 'test.kop.dev/v1',
        kind: 'Widget',
        metadata: { name: 'applied', namespace: ns },
        spec: { size: 7 },
      },
      { fieldManager: 'client-test' },
    );
    expect(applied.spec?.size).toBe(7);
    expect(applied.metadata?.managedFields?.some((f) => f.manager === 'client-test')).toBe(true);

    await client.delete(widgetResource, { namespace: ns, name: 'w' });
    await expect(client.get(widgetResource, { namespace: ns, name: 'w' }, { live: true })).rejects.toSatisfy(
      isNotFound,
    );
  });

  it('writes status through the status subresource, and scale through the scale subresource', async () => {
    const widget = await client.create(widgetResource, { metadata: { name: 's', namespace: ns }, spec: { size: 1 } });
    const withStatus = await client
      .status()
      .update(widgetResource, { ...widget, status: { phase: 'Up' }, spec: { size: 9 } });
    expect(withStatus.status).toEqual({ phase: 'Up' });
    expect(withStatus.spec?.size).toBe(1);
    const patched = await client
      .status()
      .patch(widgetResource, { namespace: ns, name: 's' }, { type: 'merge', patch: { status: { phase: 'Down' } } });
    expect(patched.status).toEqual({ phase: 'Down' });

    const labels = { app: 'web' };
    await client.create(appsV1DeploymentType, {
      metadata: { name: 'web', namespace: ns },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
    const key = { namespace: ns, name: 'web' };
    const scale = await client.scale().get(appsV1DeploymentType, key);
    expect(scale.spec?.replicas).toBe(1);
    await client.scale().update(appsV1DeploymentType, key, { ...scale, spec: { replicas: 4 } });
    expect((await client.get(appsV1DeploymentType, key, { live: true })).spec?.replicas).toBe(4);
    const strategic = await client.patch(appsV1DeploymentType, key, {
      type: 'strategic-merge',
      patch: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } },
    });
    expect(strategic.spec?.template.spec?.containers.map((c) => c.image)).toEqual(['nginx:2']);
  });

  it('deleteAllOf empties one namespace by label, and refuses to span every namespace of a namespaced kind', async () => {
    for (const name of ['keep', 'drop-1', 'drop-2']) {
      await client.create(coreV1ConfigMapType, {
        metadata: { name, namespace: ns, labels: { drop: String(name.startsWith('drop')) } },
      });
    }
    await client.deleteAllOf(coreV1ConfigMapType, { namespace: ns, labelSelector: { drop: 'true' } });
    const left = await client.list(coreV1ConfigMapType, { namespace: ns, live: true });
    expect(left.items.map((c) => c.metadata?.name).sort()).toEqual(['keep', 'settings']);
    expect(() => client.deleteAllOf(coreV1ConfigMapType)).toThrow(/name the namespace/);
  });

  it('finalizer(): adds the finalizer before apply runs, runs cleanup once deletion is asked, then lets the object go', async () => {
    const name = 'fin';
    const key = { namespace: ns, name };
    await client.create(widgetResource, { metadata: { name, namespace: ns }, spec: { size: 1 } });
    const seen: string[] = [];
    const handlers = {
      apply: (object: Widget) => void seen.push(`apply ${object.metadata?.finalizers?.join(',')}`),
      cleanup: () => void seen.push('cleanup'),
    };
    await finalizer(
      client,
      widgetResource,
      await client.get(widgetResource, key, { live: true }),
      'test.kop.dev/cleanup',
      handlers,
    );
    expect(seen).toEqual(['apply test.kop.dev/cleanup']);
    await client.delete(widgetResource, key);
    const deleting = await client.get(widgetResource, key, { live: true });
    expect(deleting.metadata?.deletionTimestamp).toBeDefined();
    await finalizer(client, widgetResource, deleting, 'test.kop.dev/cleanup', handlers);
    expect(seen).toEqual(['apply test.kop.dev/cleanup', 'cleanup']);
    await expect(client.get(widgetResource, key, { live: true })).rejects.toSatisfy(isNotFound);
  });

  it('a namespaced manager refuses cached reads of other namespaces instead of answering "not found"', async () => {
    const scoped = new Manager({
      rest: restFor(plane),
      namespace: ns,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logger: silentLogger,
    });
    scoped.informerFor(widgetResource);
    const started = scoped.start();
    try {
      await waitFor(() => scoped.informersStarted && scoped.informerFor(widgetResource).hasSynced());
      await expect(scoped.client.get(widgetResource, { namespace: 'default', name: 'x' })).rejects.toBeInstanceOf(
        CacheScopeError,
      );
      expect((await scoped.client.get(widgetResource, { namespace: ns, name: 'before' })).metadata?.name).toBe(
        'before',
      );
    } finally {
      await scoped.stop();
      await started.catch(() => undefined);
      scoped.rest.close();
    }
  });
});
