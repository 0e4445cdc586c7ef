// Behaviours checked against controller-runtime / client-go semantics on a real kube-apiserver.
import { describe, expect, it } from 'vitest';
import type { SharedControlPlane } from '../../helpers/shared-control-plane.js';
import type { KubernetesObject, Request } from '../../../src/runtime/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import type { LeaseObject } from '../../../src/runtime/manager/leader-election.js';
import { CacheNotSyncedError, CacheScopeError } from '../../../src/runtime/cache/index.js';
import { LeaderElectionLostError } from '../../../src/runtime/manager/index.js';
import {
  Manager,
  addFinalizer,
  removeFinalizer,
  setControllerReference,
  silentLogger,
} from '../../../src/runtime/index.js';
import { createClient } from '../../../src/runtime/client/index.js';
import {
  coordinationV1LeaseType,
  coreV1ConfigMapType,
  coreV1NamespaceType,
  eventsV1EventType,
} from '../../../src/runtime/builtin/index.js';
import { LeaderElector } from '../../../src/runtime/manager/leader-election.js';
import { systemClock } from '../../../src/runtime/util/clock.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import type { Widget } from './helpers.js';
import { delay, freshNamespace, restFor, useTestControlPlane, waitFor, widgetResource } from './helpers.js';

let plane: SharedControlPlane;
let admin: RestClient;
useTestControlPlane((started) => ({ plane, admin } = started));

function newManager(options: ConstructorParameters<typeof Manager>[0] = {}): Manager {
  return new Manager({
    rest: restFor(plane),
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
    ...options,
  });
}

describe('controller-runtime semantics against a real apiserver', () => {
  it('a leader that loses its lease skips the graceful shutdown: reconciles in flight are aborted at once', async () => {
    const ns = await freshNamespace(admin, 'lost');
    const manager = newManager({
      namespace: ns,
      leaderElection: true,
      leaderElectionId: 'lost-leader',
      leaderElectionNamespace: ns,
      leaderElectionIdentity: 'a',
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 300,
      gracefulShutdownTimeoutMs: 30_000,
    });
    let aborted = false;
    let started = false;
    manager
      .controller('widget')
      .for(widgetResource)
      .complete(async (_request, { signal }) => {
        started = true;
        // A reconcile that only ends when its signal aborts (a long call honouring the signal).
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        aborted = true;
      });
    const done = manager.start();
    let failure: unknown;
    done.catch((err: unknown) => (failure = err));
    await waitFor(() => manager.isLeader, 15_000, 'leads');
    await new ResourceClient<Widget>(admin, widgetResource, ns).create({
      metadata: { name: 'slow' },
      spec: { size: 1 },
    });
    await waitFor(() => started, 10_000, 'reconcile started');
    // Another replica takes the lease for a long time: renewals fail until the renew deadline.
    const leases = new ResourceClient<LeaseObject>(admin, coordinationV1LeaseType, ns);
    const lease = await leases.get('lost-leader');
    await leases.update({
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: 'b',
        leaseDurationSeconds: 3600,
        renewTime: new Date().toISOString().replace('Z', '000Z'),
      },
    });
    const takenAt = Date.now();
    await waitFor(() => failure, 10_000, 'start rejects');
    expect(failure).toBeInstanceOf(LeaderElectionLostError);
    expect(aborted).toBe(true);
    // Renew deadline (2 s) plus a retry, not the 30 s graceful shutdown timeout.
    expect(Date.now() - takenAt).toBeLessThan(6000);
    expect((await leases.get('lost-leader')).spec?.holderIdentity).toBe('b');
  });

  it('owns() enqueues a cluster-scoped owner with an empty namespace, the same key as its for() events', async () => {
    const ns = await freshNamespace(admin, 'cluster-owner');
    const owner = await new ResourceClient(admin, coreV1NamespaceType).get(ns);
    const manager = newManager();
    const requests: Request[] = [];
    manager
      .controller('namespace')
      .for(coreV1NamespaceType)
      .owns(coreV1ConfigMapType)
      .complete((request) => {
        if (request.name === ns) requests.push(request);
      });
    const done = manager.start();
    await waitFor(() => requests.length > 0, 15_000, 'first reconcile');
    const cm: KubernetesObject & { data?: Record<string, string> } = {
      metadata: { name: 'owned', namespace: ns },
      data: { a: '1' },
    };
    setControllerReference({ apiVersion: 'v1', kind: 'Namespace', ...owner }, cm);
    const before = requests.length;
    await new ResourceClient(admin, coreV1ConfigMapType, ns).create(cm);
    await waitFor(() => requests.length > before, 10_000, 'reconcile from the owned ConfigMap');
    expect(requests.every((r) => r.namespace === '')).toBe(true);
    await manager.stop();
    await done;
  });

  it('finalizer edits from a stale read keep a finalizer another writer added or removed meanwhile (the test op fails, the patch is recomputed)', async () => {
    const ns = await freshNamespace(admin, 'fin-race');
    const widgets = new ResourceClient<Widget>(admin, widgetResource, ns);
    const api = createClient(admin);
    const stale = await widgets.create({ metadata: { name: 'race' }, spec: { size: 1 } });
    // Another controller adds its finalizer after our read (the field did not exist when we read).
    await widgets.patch('race', { type: 'merge', patch: { metadata: { finalizers: ['other.dev/x'] } } });
    const added = await addFinalizer(api, widgetResource, stale, 'test.kop.dev/cleanup');
    expect(added.metadata?.finalizers).toEqual(['other.dev/x', 'test.kop.dev/cleanup']);
    // The list changes again behind our back, then we remove ours from the stale copy.
    await widgets.patch('race', {
      type: 'merge',
      patch: { metadata: { finalizers: ['other.dev/x', 'test.kop.dev/cleanup', 'third.dev/y'] } },
    });
    const removed = await removeFinalizer(api, widgetResource, added, 'test.kop.dev/cleanup');
    expect(removed.metadata?.finalizers).toEqual(['other.dev/x', 'third.dev/y']);
    expect((await widgets.get('race')).metadata?.finalizers).toEqual(['other.dev/x', 'third.dev/y']);
    await widgets.patch('race', { type: 'merge', patch: { metadata: { finalizers: null } } });
  });

  it('removeFinalizer on an object that is already gone is a no-op', async () => {
    const ns = await freshNamespace(admin, 'fin-gone');
    const widgets = new ResourceClient<Widget>(admin, widgetResource, ns);
    const api = createClient(admin);
    const created = await widgets.create({ metadata: { name: 'gone' }, spec: { size: 1 } });
    const withFinalizer = await addFinalizer(api, widgetResource, created, 'test.kop.dev/cleanup');
    await widgets.delete('gone');
    const deleting = await widgets.get('gone');
    // Someone else (a second reconcile, a human) removes the finalizer first: the object disappears.
    await removeFinalizer(api, widgetResource, deleting, 'test.kop.dev/cleanup');
    await waitFor(async () => (await widgets.list()).items.length === 0, 10_000, 'object gone');
    await expect(removeFinalizer(api, widgetResource, withFinalizer, 'test.kop.dev/cleanup')).resolves.toBeDefined();
  });

  it('records an event whose note has multi-byte characters beyond 1024 bytes (the apiserver counts bytes)', async () => {
    const ns = await freshNamespace(admin, 'event-bytes');
    const manager = newManager();
    const widget = await new ResourceClient<Widget>(admin, widgetResource, ns).create({
      metadata: { name: 'w' },
      spec: { size: 1 },
    });
    const recorder = manager.eventRecorder('widget-controller');
    const note = 'é'.repeat(800); // 800 characters, 1600 bytes
    await recorder.warning(widget, 'Degraded', note);
    const events = new ResourceClient<KubernetesObject & { note?: string }>(admin, eventsV1EventType, ns);
    const list = (await events.list()).items;
    expect(list).toHaveLength(1);
    const written = list[0]!.note!;
    expect(Buffer.byteLength(written)).toBeLessThanOrEqual(1024);
    expect(written.startsWith('é'.repeat(100))).toBe(true);
    await delay(0);
  });

  it('an event recorder whose component the apiserver would refuse as reportingController fails when it is made, not silently on every event', async () => {
    const ns = await freshNamespace(admin, 'event-component');
    const manager = newManager();
    expect(() => manager.eventRecorder('Widget Controller')).toThrow(TypeError);
    expect(() => manager.eventRecorder('w'.repeat(64))).toThrow(TypeError);
    const widget = await new ResourceClient<Widget>(admin, widgetResource, ns).create({
      metadata: { name: 'w' },
      spec: { size: 1 },
    });
    await manager.eventRecorder('test.kop.dev/widget-controller').normal(widget, 'Created', 'made');
    const events = new ResourceClient<KubernetesObject & { reportingController?: string }>(
      admin,
      eventsV1EventType,
      ns,
    );
    expect((await events.list()).items.map((e) => e.reportingController)).toEqual(['test.kop.dev/widget-controller']);
  });

  it('Lease fields follow client-go: transitions count holder changes, acquireTime stays while renewing, release leaves holder empty and duration 1 s', async () => {
    const ns = await freshNamespace(admin, 'lease-fields');
    const leases = new ResourceClient<LeaseObject>(admin, coordinationV1LeaseType, ns);
    const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200 };
    const signal = new AbortController();
    const a = new LeaderElector({ rest: admin, namespace: ns, name: 'fields', identity: 'a', ...timing });
    await a.acquire(signal.signal);
    const first = (await leases.get('fields')).spec!;
    expect(first).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 3, leaseTransitions: 0 });
    expect(first.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const holding = a.holdLease(signal.signal);
    await waitFor(async () => (await leases.get('fields')).spec?.renewTime !== first.renewTime, 5000, 'a renews');
    expect((await leases.get('fields')).spec).toMatchObject({
      holderIdentity: 'a',
      acquireTime: first.acquireTime,
      leaseTransitions: 0,
    });
    signal.abort();
    expect(await holding).toBe('stopped');
    await a.release();
    expect((await leases.get('fields')).spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    });
    const b = new LeaderElector({ rest: admin, namespace: ns, name: 'fields', identity: 'b', ...timing });
    const startedAt = Date.now();
    await b.acquire(new AbortController().signal);
    // A released lease is taken at once, not after the old duration.
    expect(Date.now() - startedAt).toBeLessThan(1500);
    const taken = (await leases.get('fields')).spec!;
    expect(taken).toMatchObject({ holderIdentity: 'b', leaseDurationSeconds: 3, leaseTransitions: 1 });
    expect(taken.acquireTime).not.toBe(first.acquireTime);
    await b.release();
  });

  it('release reads the Lease again and retries when its write conflicts (a renewal landed first), instead of leaving it held for a duration', async () => {
    const ns = await freshNamespace(admin, 'lease-release');
    const leases = new ResourceClient<LeaseObject>(admin, coordinationV1LeaseType, ns);
    // The first write after release starts finds the Lease changed under it, as when a renewal
    // that was still in flight lands between release's read and its write.
    let releasing = false;
    let bumped = 0;
    const rest = restFor(plane);
    const racing = Object.create(rest) as RestClient;
    racing.request = async <T>(req: Parameters<RestClient['request']>[0]): Promise<T> => {
      if (releasing && req.method === 'PUT' && bumped === 0) {
        bumped++;
        const lease = await leases.get('release');
        await leases.update({
          ...lease,
          spec: { ...lease.spec, renewTime: lease.spec?.renewTime?.replace(/\d{3}Z$/, '999Z') },
        });
      }
      return rest.request<T>(req);
    };
    const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200 };
    const a = new LeaderElector({ rest: racing, namespace: ns, name: 'release', identity: 'a', ...timing });
    await a.acquire(new AbortController().signal);
    releasing = true;
    await a.release();
    expect(bumped).toBe(1);
    expect((await leases.get('release')).spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
  });

  it('a leader is no longer leader once its last renewal is older than the renew deadline, before any renewal loop notices', async () => {
    const ns = await freshNamespace(admin, 'lease-deadline');
    let now = Date.now();
    const clock = { ...systemClock, now: () => now };
    const a = new LeaderElector({
      rest: admin,
      namespace: ns,
      name: 'deadline',
      identity: 'a',
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 200,
      clock,
    });
    await a.acquire(new AbortController().signal);
    expect(a.isLeader).toBe(true);
    now += 1999;
    expect(a.isLeader).toBe(true);
    now += 1;
    expect(a.isLeader).toBe(false);
  });

  it('two controllers with one name are refused, as controller-runtime refuses them (their metrics would mix)', () => {
    const manager = newManager();
    manager
      .controller('widget')
      .for(widgetResource)
      .complete(() => undefined);
    expect(() =>
      manager
        .controller('widget')
        .for(coreV1ConfigMapType)
        .complete(() => undefined),
    ).toThrow(/widget/);
  });

  it('a cache list with a label selector returns what the apiserver returns for the same selector', async () => {
    const ns = await freshNamespace(admin, 'selector');
    const cms = new ResourceClient(admin, coreV1ConfigMapType, ns);
    const labelSets: Array<Record<string, string>> = [
      { app: 'web', tier: 'front', env: 'prod' },
      { app: 'web', tier: 'back', env: 'staging' },
      { app: 'db', env: 'prod', legacy: 'true' },
      { app: 'db' },
      {},
      { 'example.com/owner': 'team-a', env: 'dev' },
    ];
    for (const [i, labels] of labelSets.entries()) await cms.create({ metadata: { name: `cm${i}`, labels } });
    const manager = newManager({ namespace: ns });
    const lister = manager.lister<KubernetesObject>(coreV1ConfigMapType);
    const done = manager.start();
    await waitFor(() => lister.list({ namespace: ns }).length >= labelSets.length, 10_000, 'cache filled');
    const selectors = [
      'app=web',
      'app==db,env=prod',
      'tier!=back',
      'env in (prod,staging)',
      'env notin (prod)',
      'legacy',
      '!legacy',
      'app,!tier',
      'example.com/owner=team-a',
      'app in (web), tier notin (front)',
      'env=',
    ];
    for (const selector of selectors) {
      const server = (await cms.list({ labelSelector: selector })).items.map((o) => o.metadata?.name).sort();
      const cached = lister
        .list({ namespace: ns, labelSelector: selector })
        .map((o) => o.metadata?.name)
        .sort();
      expect({ selector, names: cached }).toEqual({ selector, names: server });
    }
    expect(() => lister.list({ labelSelector: 'app in web' })).toThrow(SyntaxError);
    await manager.stop();
    await done;
  });

  it('records an event about an object whose name is as long as names go (253 characters)', async () => {
    const ns = await freshNamespace(admin, 'event-long-name');
    const name = `${'a'.repeat(200)}.${'b'.repeat(52)}`;
    const cm = await new ResourceClient(admin, coreV1ConfigMapType, ns).create({ metadata: { name } });
    await newManager()
      .eventRecorder('widget-controller')
      .normal({ apiVersion: 'v1', kind: 'ConfigMap', ...cm }, 'Seen', 'long name');
    const events = new ResourceClient<KubernetesObject & { regarding?: { name?: string } }>(
      admin,
      eventsV1EventType,
      ns,
    );
    expect((await events.list()).items.map((e) => e.regarding?.name)).toEqual([name]);
  });

  it("addFinalizer on an object being deleted fails at once with the apiserver's refusal, not after retrying it as if the list had moved", async () => {
    const ns = await freshNamespace(admin, 'fin-deleting');
    const widgets = new ResourceClient<Widget>(admin, widgetResource, ns);
    await widgets.create({ metadata: { name: 'going', finalizers: ['other.dev/x'] }, spec: { size: 1 } });
    await widgets.delete('going');
    const deleting = await widgets.get('going');
    let patches = 0;
    const counting = new Proxy(createClient(admin), {
      get(target, property, receiver) {
        if (property === 'patch') patches++;
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await expect(addFinalizer(counting, widgetResource, deleting, 'test.kop.dev/cleanup')).rejects.toMatchObject({
      code: 422,
    });
    expect(patches).toBe(1);
    await widgets.patch('going', { type: 'merge', patch: { metadata: { finalizers: null } } });
  });

  it('events aggregate as client-go does: one series per object version, type, reason and action, whatever the note', async () => {
    const ns = await freshNamespace(admin, 'event-series');
    const widgets = new ResourceClient<Widget>(admin, widgetResource, ns);
    const widget = await widgets.create({ metadata: { name: 'w' }, spec: { size: 1 } });
    const recorder = newManager().eventRecorder('widget-controller');
    // A failing reconcile loop whose error text changes each time must not create an Event per attempt.
    for (let attempt = 1; attempt <= 3; attempt++)
      await recorder.warning(widget, 'ReconcileFailed', `attempt ${attempt}: backend unreachable`, 'Reconcile');
    const events = new ResourceClient<KubernetesObject & { note?: string; series?: { count: number } }>(
      admin,
      eventsV1EventType,
      ns,
    );
    let list = (await events.list()).items;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ note: 'attempt 1: backend unreachable', series: { count: 3 } });
    // The object changed: a new Event starts (its regarding reference names the new resourceVersion).
    const changed = await widgets.update({ ...widget, spec: { size: 2 } });
    await recorder.warning(changed, 'ReconcileFailed', 'attempt 4: backend unreachable', 'Reconcile');
    list = (await events.list()).items;
    expect(list).toHaveLength(2);
  });

  it('a namespaced manager\'s lister refuses reads of other namespaces instead of answering "not found", as controller-runtime\'s cache does', async () => {
    const watched = await freshNamespace(admin, 'scope-in');
    const other = await freshNamespace(admin, 'scope-out');
    await new ResourceClient(admin, coreV1ConfigMapType, watched).create({ metadata: { name: 'here' } });
    await new ResourceClient(admin, coreV1ConfigMapType, other).create({ metadata: { name: 'there' } });
    const manager = newManager({ namespace: watched });
    const cms = manager.lister<KubernetesObject>(coreV1ConfigMapType);
    const done = manager.start();
    await waitFor(() => cms.get(watched, 'here'), 10_000, 'cache filled');
    // The object exists: a reconcile must not take "undefined" for "deleted".
    expect(() => cms.get(other, 'there')).toThrow(CacheScopeError);
    expect(() => cms.list({ namespace: other })).toThrow(CacheScopeError);
    expect(cms.list().map((o) => o.metadata?.name)).toEqual(['here']);
    // Cluster-scoped kinds are cached whole and read by name.
    expect(() => manager.lister<KubernetesObject>(coreV1NamespaceType).get(other)).not.toThrow(CacheScopeError);
    await manager.stop();
    await done;
  });

  it('a lister first asked for inside a running reconcile never answers "not found" before its cache has synced', async () => {
    const ns = await freshNamespace(admin, 'lazy-lister');
    await new ResourceClient(admin, coreV1ConfigMapType, ns).create({ metadata: { name: 'settings' } });
    const manager = newManager({ namespace: ns });
    const seen: string[] = [];
    manager
      .controller('widget')
      .for(widgetResource)
      .complete(({ namespace }) => {
        // A kind no controller watches: its informer is created (and started) by this first call.
        let settings: KubernetesObject | undefined;
        try {
          settings = manager.lister<KubernetesObject>(coreV1ConfigMapType).get(namespace, 'settings');
        } catch (err) {
          if (err instanceof CacheNotSyncedError) seen.push('not synced');
          throw err;
        }
        seen.push(settings ? 'found' : 'missing');
      });
    const done = manager.start();
    await new ResourceClient<Widget>(admin, widgetResource, ns).create({ metadata: { name: 'w' }, spec: { size: 1 } });
    await waitFor(() => seen.includes('found'), 10_000, 'the settings ConfigMap read from the cache');
    expect(seen.filter((s) => s !== 'not synced')).toEqual(['found']);
    await manager.stop();
    await done;
  });
});
