import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition } from '../../../src/api/index.js';
import type { Reconciler, ReconcileResult, Request } from '../../../src/runtime/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import {
  Manager,
  addFinalizer,
  createOrUpdate,
  isBeingDeleted,
  removeFinalizer,
  setCondition,
  setControllerReference,
  silentLogger,
  createLogger,
} from '../../../src/runtime/index.js';
import { createClient } from '../../../src/runtime/client/index.js';
import { generationChanged } from '../../../src/runtime/controller/index.js';
import { coreV1ConfigMapType, eventsV1EventType } from '../../../src/runtime/builtin/index.js';
import { ExponentialBackoffRateLimiter } from '../../../src/runtime/queue/rate-limiter.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import type { Widget } from './helpers.js';
import {
  delay,
  freshNamespace,
  restFor,
  leaseTestControlPlane,
  type LeasedControlPlane,
  waitFor,
  widgetResource,
} from './helpers.js';

let plane: LeasedControlPlane;
let admin: RestClient;
const managers: Manager[] = [];

beforeAll(async () => {
  plane = await leaseTestControlPlane();
  admin = restFor(plane);
});

afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  admin?.close();
  await plane?.release();
});

function widgets(namespace: string): ResourceClient<Widget> {
  return new ResourceClient<Widget>(admin, widgetResource, namespace);
}

/** A manager on the test control plane, restricted to `namespace`, probes and metrics on free ports. */
function newManager(namespace: string, extra: Partial<ConstructorParameters<typeof Manager>[0]> = {}): Manager {
  const manager = new Manager({
    rest: restFor(plane),
    namespace,
    metricsBindAddress: '127.0.0.1:0',
    metricsSecure: false, // plain HTTP: these tests read the metrics, test/runtime/manager covers secure serving
    healthProbeBindAddress: '127.0.0.1:0',
    logger: process.env.KOP_TEST_LOG ? createLogger({ level: 'debug', format: 'text' }) : silentLogger,
    ...extra,
  });
  managers.push(manager);
  return manager;
}

/** Starts `manager` in the background and waits until its controllers run. */
async function run(manager: Manager): Promise<void> {
  manager.start().catch(() => undefined);
  await waitFor(() => manager.isLeader, 20_000, 'manager started');
}

describe('controllers against a real apiserver', () => {
  it('reconciles on create, update and delete, reading the cache', async () => {
    const ns = await freshNamespace(admin, 'ctl-basic');
    const manager = newManager(ns);
    const seen: Array<{ name: string; size: number | undefined; exists: boolean }> = [];
    const lister = manager.lister<Widget>(widgetResource);
    manager
      .controller('widget')
      .for(widgetResource)
      .complete((request) => {
        const widget = lister.get(request.namespace, request.name);
        seen.push({ name: request.name, size: widget?.spec?.size, exists: widget !== undefined });
      });
    await run(manager);
    await widgets(ns).create({ metadata: { name: 'w' }, spec: { size: 1 } });
    await waitFor(() => seen.some((s) => s.size === 1), 10_000, 'reconcile after create');
    await widgets(ns).patch('w', { type: 'merge', patch: { spec: { size: 2 } } });
    await waitFor(() => seen.some((s) => s.size === 2), 10_000, 'reconcile after update');
    await widgets(ns).delete('w');
    await waitFor(() => seen.some((s) => !s.exists), 10_000, 'reconcile after delete');
    await manager.stop();
  });

  it('coalesces a burst of 50 updates into few reconciles, never two at once for a key', async () => {
    const ns = await freshNamespace(admin, 'ctl-burst');
    const manager = newManager(ns);
    const lister = manager.lister<Widget>(widgetResource);
    let running = 0;
    let maxRunning = 0;
    let reconciles = 0;
    let lastSize: number | undefined;
    manager
      .controller('widget')
      .for(widgetResource)
      .withOptions({ maxConcurrentReconciles: 4 })
      .complete(async (request) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        reconciles++;
        await delay(100);
        lastSize = lister.get(request.namespace, request.name)?.spec?.size;
        running--;
      });
    await run(manager);
    await widgets(ns).create({ metadata: { name: 'burst' }, spec: { size: 0 } });
    await waitFor(() => reconciles >= 1, 10_000, 'first reconcile');
    const before = reconciles;
    for (let i = 1; i <= 50; i++) await widgets(ns).patch('burst', { type: 'merge', patch: { spec: { size: i } } });
    await waitFor(() => lastSize === 50 && running === 0, 15_000, 'reconcile of the final state');
    await delay(300);
    const burstReconciles = reconciles - before;
    expect(maxRunning).toBe(1);
    expect(burstReconciles).toBeGreaterThanOrEqual(1);
    expect(burstReconciles).toBeLessThan(25);
    await manager.stop();
  });

  it('backs off per key on errors without delaying other keys, and honours requeueAfter', async () => {
    const ns = await freshNamespace(admin, 'ctl-backoff');
    const manager = newManager(ns);
    const attempts = new Map<string, number[]>();
    const reconciler: Reconciler = {
      reconcile(request: Request): ReconcileResult {
        const times = attempts.get(request.name) ?? [];
        times.push(Date.now());
        attempts.set(request.name, times);
        if (request.name === 'failing' && times.length <= 4) throw new Error('boom');
        if (request.name === 'poller' && times.length === 1) return { requeueAfter: 700 };
      },
    };
    manager
      .controller('widget')
      .for(widgetResource)
      .withOptions({
        maxConcurrentReconciles: 2,
        rateLimiter: new ExponentialBackoffRateLimiter({ baseDelayMs: 100, maxDelayMs: 10_000 }),
      })
      .complete(reconciler);
    await run(manager);
    await widgets(ns).create({ metadata: { name: 'failing' }, spec: { size: 1 } });
    await widgets(ns).create({ metadata: { name: 'healthy' }, spec: { size: 1 } });
    await widgets(ns).create({ metadata: { name: 'poller' }, spec: { size: 1 } });
    await waitFor(() => (attempts.get('failing')?.length ?? 0) >= 5, 15_000, 'five attempts');
    const failing = attempts.get('failing')!;
    const gaps = failing.slice(1).map((t, i) => t - failing[i]!);
    // 100, 200, 400, 800 ms: each wait at least the backoff, and growing.
    expect(gaps[0]).toBeGreaterThanOrEqual(90);
    expect(gaps[1]).toBeGreaterThanOrEqual(190);
    expect(gaps[2]).toBeGreaterThanOrEqual(390);
    expect(gaps[3]).toBeGreaterThanOrEqual(790);
    expect(attempts.get('healthy')).toHaveLength(1);
    await waitFor(() => attempts.get('poller')?.length === 2, 5_000, 'requeueAfter');
    const poller = attempts.get('poller')!;
    expect(poller[1]! - poller[0]!).toBeGreaterThanOrEqual(690);
    await delay(500);
    expect(attempts.get('failing')).toHaveLength(5);
    await manager.stop();
  });

  it('runs the finalizer before the object disappears, and writes status with conditions', async () => {
    const ns = await freshNamespace(admin, 'ctl-final');
    const manager = newManager(ns);
    const finalizer = 'test.kop.dev/cleanup';
    const cleanups: Array<{ name: string; stillThere: boolean }> = [];
    const lister = manager.lister<Widget>(widgetResource);
    const client = widgets(ns);
    const api = createClient(admin);
    manager
      .controller('widget')
      .for(widgetResource, { predicates: [generationChanged()] })
      .complete(async (request) => {
        const cached = lister.get(request.namespace, request.name);
        if (!cached) return;
        if (isBeingDeleted(cached)) {
          if (cached.metadata?.finalizers?.includes(finalizer)) {
            const live = await client.get(request.name).then(
              () => true,
              () => false,
            );
            cleanups.push({ name: request.name, stillThere: live });
            await removeFinalizer(api, widgetResource, cached, finalizer);
          }
          return;
        }
        const widget = await addFinalizer(api, widgetResource, cached, finalizer);
        const conditions = ((widget.status?.conditions as Condition[] | undefined) ?? []).map((c) => ({ ...c }));
        setCondition(conditions, {
          type: 'Ready',
          status: 'True',
          reason: 'Reconciled',
          message: 'ok',
          observedGeneration: widget.metadata?.generation,
        });
        await client.updateStatus({
          ...widget,
          status: { ...widget.status, conditions, observedGeneration: widget.metadata?.generation },
        });
      });
    await run(manager);
    await client.create({ metadata: { name: 'fin' }, spec: { size: 1 } });
    const ready = await waitFor(
      async () => {
        const w = await client.get('fin');
        return (w.status?.conditions as Condition[] | undefined)?.find((c) => c.type === 'Ready' && c.status === 'True')
          ? w
          : undefined;
      },
      10_000,
      'Ready condition',
    );
    expect(ready.metadata?.finalizers).toEqual([finalizer]);
    expect(ready.status?.observedGeneration).toBe(1);
    await client.delete('fin');
    await waitFor(
      async () =>
        client.get('fin').then(
          () => false,
          () => true,
        ),
      10_000,
      'object gone',
    );
    // At least once, the first time while the object still existed. A second run is possible when
    // the cache still shows the finalizer after our own patch removed it: cleanups must be idempotent.
    expect(cleanups[0]).toEqual({ name: 'fin', stillThere: true });
    await manager.stop();
  });

  it('owned objects carry a controller reference and their changes enqueue the owner', async () => {
    const ns = await freshNamespace(admin, 'ctl-owns');
    const manager = newManager(ns);
    const lister = manager.lister<Widget>(widgetResource);
    const reconciles: string[] = [];
    const cms = new ResourceClient(admin, coreV1ConfigMapType, ns);
    const api = createClient(admin);
    manager
      .controller('widget')
      .for(widgetResource)
      .owns(coreV1ConfigMapType)
      .complete(async (request) => {
        reconciles.push(request.name);
        const owner = lister.get(request.namespace, request.name);
        if (!owner) return;
        await createOrUpdate(api, coreV1ConfigMapType, { namespace: ns, name: `${request.name}-config` }, (cm) => {
          setControllerReference(owner, cm);
          cm.data = { size: String(owner.spec?.size ?? 0) };
        });
      });
    await run(manager);
    await widgets(ns).create({ metadata: { name: 'owner' }, spec: { size: 3 } });
    const cm = await waitFor(() => cms.get('owner-config').catch(() => undefined), 10_000, 'owned ConfigMap');
    const owner = await widgets(ns).get('owner');
    expect(cm.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'test.kop.dev/v1',
        kind: 'Widget',
        name: 'owner',
        uid: owner.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(cm.data).toEqual({ size: '3' });
    await waitFor(() => reconciles.length >= 2, 5_000, 'reconcile caused by the ConfigMap create');
    const count = reconciles.length;
    // Someone edits the owned object: the owner is reconciled and puts it back.
    await cms.patch('owner-config', { type: 'merge', patch: { data: { size: 'tampered' } } });
    await waitFor(async () => (await cms.get('owner-config')).data?.size === '3', 10_000, 'owned object restored');
    expect(reconciles.length).toBeGreaterThan(count);
    expect(new Set(reconciles)).toEqual(new Set(['owner']));
    await manager.stop();
  });

  it('serves /healthz, /readyz and /metrics with the right content', async () => {
    const ns = await freshNamespace(admin, 'ctl-probes');
    const manager = newManager(ns);
    let calls = 0;
    manager
      .controller('widget')
      .for(widgetResource)
      .complete((request) => {
        calls++;
        if (request.name === 'bad' && calls < 3) throw new Error('nope');
      });
    await run(manager);
    await widgets(ns).create({ metadata: { name: 'bad' }, spec: { size: 1 } });
    await waitFor(() => calls >= 3, 10_000, 'reconciles');
    const get = async (address: string, path: string) => {
      const res = await fetch(`http://${address}${path}`);
      return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
    };
    expect(await get(manager.healthProbeAddress!, '/healthz')).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(manager.healthProbeAddress!, '/readyz')).toMatchObject({ status: 200, body: 'ok' });
    expect((await get(manager.healthProbeAddress!, '/readyz?verbose')).body).toContain('[+]informers-synced ok');
    const metrics = await get(manager.metricsAddress!, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toContain('text/plain');
    expect(metrics.body).toMatch(/controller_runtime_reconcile_total\{controller="widget",result="error"\} 2/);
    expect(metrics.body).toMatch(/controller_runtime_reconcile_total\{controller="widget",result="success"\} 1/);
    expect(metrics.body).toMatch(/controller_runtime_reconcile_errors_total\{controller="widget"\} 2/);
    expect(metrics.body).toMatch(/controller_runtime_reconcile_time_seconds_count\{controller="widget"\} 3/);
    expect(metrics.body).toMatch(/workqueue_adds_total\{name="widget",controller="widget"\} \d+/);
    expect(metrics.body).toMatch(/workqueue_retries_total\{name="widget",controller="widget"\} 2/);
    expect(metrics.body).toMatch(/workqueue_depth\{name="widget",controller="widget"\} 0/);
    expect(metrics.body).toMatch(/workqueue_queue_duration_seconds_bucket/);
    expect(metrics.body).toMatch(/workqueue_work_duration_seconds_bucket/);
    expect(metrics.body).toMatch(/kop_informer_watch_restarts_total|# HELP kop_informer_watch_restarts_total/);
    expect(metrics.body).toMatch(/process_resident_memory_bytes/);
    await manager.stop();
  });

  it('readyz fails until caches sync', async () => {
    const ns = await freshNamespace(admin, 'ctl-ready');
    const manager = newManager(ns, { rest: restFor(plane, 'https://127.0.0.1:1') });
    manager
      .controller('widget')
      .for(widgetResource)
      .complete(() => undefined);
    const done = manager.start();
    done.catch(() => undefined);
    await waitFor(() => manager.healthProbeAddress, 5000, 'probe server');
    const res = await fetch(`http://${manager.healthProbeAddress}/readyz`);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('[-]informers-synced failed: caches not synced: Widget.test.kop.dev');
    expect((await fetch(`http://${manager.healthProbeAddress}/healthz`)).status).toBe(200);
    // One check by name, and the rest with one left out, as kubelet probes and humans ask.
    const single = await fetch(`http://${manager.healthProbeAddress}/readyz/informers-synced`);
    expect(single.status).toBe(500);
    expect(await single.text()).toBe('internal server error: caches not synced: Widget.test.kop.dev\n');
    expect((await fetch(`http://${manager.healthProbeAddress}/readyz?exclude=informers-synced`)).status).toBe(200);
    expect((await fetch(`http://${manager.healthProbeAddress}/healthz/ping`)).status).toBe(200);
    expect((await fetch(`http://${manager.healthProbeAddress}/healthz/nope`)).status).toBe(404);
    await manager.stop();
  });
});

describe('event recorder and createOrUpdate against a real apiserver', () => {
  it('records events.k8s.io/v1 Events and aggregates repeats into a series', async () => {
    const ns = await freshNamespace(admin, 'events');
    const manager = newManager(ns);
    const widget = await widgets(ns).create({ metadata: { name: 'noisy' }, spec: { size: 1 } });
    const recorder = manager.eventRecorder('widget-controller');
    await recorder.warning(widget, 'ReconcileFailed', 'backend unreachable', 'Reconcile');
    await recorder.warning(widget, 'ReconcileFailed', 'backend unreachable', 'Reconcile');
    await recorder.warning(widget, 'ReconcileFailed', 'backend unreachable', 'Reconcile');
    await recorder.normal(widget, 'Created', 'made a thing');
    const events = new ResourceClient<{
      metadata?: { name?: string };
      reason?: string;
      type?: string;
      note?: string;
      series?: { count: number };
      regarding?: { uid?: string };
      reportingController?: string;
    }>(admin, eventsV1EventType, ns);
    const list = (await events.list()).items;
    expect(list).toHaveLength(2);
    const failed = list.find((e) => e.reason === 'ReconcileFailed')!;
    expect(failed).toMatchObject({
      type: 'Warning',
      note: 'backend unreachable',
      reportingController: 'widget-controller',
      series: { count: 3 },
    });
    expect(failed.regarding?.uid).toBe(widget.metadata?.uid);
    expect(list.find((e) => e.reason === 'Created')?.series).toBeUndefined();
  });

  it('createOrUpdate creates, leaves unchanged objects alone, and updates', async () => {
    const ns = await freshNamespace(admin, 'cou');
    const client = createClient(admin);
    const first = await createOrUpdate(client, coreV1ConfigMapType, { namespace: ns, name: 'settings' }, (cm) => {
      cm.data = { mode: 'fast' };
    });
    expect(first.operation).toBe('created');
    const again = await createOrUpdate(client, coreV1ConfigMapType, { namespace: ns, name: 'settings' }, (cm) => {
      cm.data = { mode: 'fast' };
    });
    expect(again.operation).toBe('unchanged');
    expect(again.object.metadata?.resourceVersion).toBe(first.object.metadata?.resourceVersion);
    const changed = await createOrUpdate(client, coreV1ConfigMapType, { namespace: ns, name: 'settings' }, (cm) => {
      cm.data = { ...cm.data, mode: 'safe' };
    });
    expect(changed.operation).toBe('updated');
    expect((await client.get(coreV1ConfigMapType, { namespace: ns, name: 'settings' })).data).toEqual({ mode: 'safe' });
  });
});
