import { describe, expect, it } from 'vitest';
import { Manager } from '../../../src/runtime/index.js';
import { LeaderElectionLostError } from '../../../src/runtime/manager/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import type { Widget } from '../controller/helpers.js';
import { HashRing } from '../../../src/runtime/sharding/hash-ring.js';
import { isNotFound } from '../../../src/runtime/client/errors/api-error.js';
import type { Logger } from '../../../src/runtime/util/logger.js';
import { TcpProxy, delay, waitFor, widgetResource } from '../controller/helpers.js';
import { electingManagerOptions, recordingLogger, startManager, useLiveCluster } from '../../helpers/live-cluster.js';

const live = useLiveCluster();

// Renew deadline 3.5 s: long enough that a loaded machine does not cost a replica its Lease mid-test.
const LEASE = { leaseDurationMs: 5000, renewDeadlineMs: 3500, retryPeriodMs: 400 };
const SHARD_LABEL = 'shard.kop.dev/widgets';
const DRAIN_LABEL = 'drain.shard.kop.dev/widgets';

/** One reconcile, timed on this process's clock (every replica runs in this process). */
interface Span {
  replica: string;
  key: string;
  start: number;
  end: number;
}

/** Every reconcile of every replica, and the pairs of them that overlapped on one object across replicas. */
class ReconcileLog {
  readonly spans: Span[] = [];
  /** Reconciles of a deletion: begun with the object gone from the replica's cache. */
  readonly ofDeletion: Array<{ replica: string; key: string; at: number }> = [];
  private readonly running: Array<Omit<Span, 'end'>> = [];

  record(replica: string, key: string): () => void {
    const span = { replica, key, start: performance.now() };
    this.running.push(span);
    return () => {
      this.running.splice(this.running.indexOf(span), 1);
      this.spans.push({ ...span, end: performance.now() });
    };
  }

  /** Reconciles of one object by two replicas whose times overlap (running ones count as open-ended). */
  overlaps(): Array<[Span, Span]> {
    const all = [...this.spans, ...this.running.map((s) => ({ ...s, end: Infinity }))];
    const byKey = new Map<string, Span[]>();
    for (const span of all) byKey.set(span.key, [...(byKey.get(span.key) ?? []), span]);
    const found: Array<[Span, Span]> = [];
    for (const spans of byKey.values())
      for (let i = 0; i < spans.length; i++)
        for (let j = i + 1; j < spans.length; j++) {
          const [a, b] = [spans[i]!, spans[j]!];
          if (a.replica !== b.replica && a.start < b.end && b.start < a.end) found.push([a, b]);
        }
    return found;
  }

  /** True while a reconcile of `key` runs. */
  isRunning(key: string): boolean {
    return this.running.some((s) => s.key === key);
  }

  reconciledBy(key: string): Set<string> {
    return new Set(this.spans.filter((s) => s.key === key).map((s) => s.replica));
  }

  lastBy(replica: string, keys: Set<string>): number {
    return Math.max(...this.spans.filter((s) => s.replica === replica && keys.has(s.key)).map((s) => s.end));
  }

  firstOtherThan(replica: string, keys: Set<string>, after: number): number {
    return Math.min(
      ...this.spans.filter((s) => s.replica !== replica && keys.has(s.key) && s.start > after).map((s) => s.start),
    );
  }
}

const FINALIZER = 'test.kop.dev/cleanup';

/** Reconciles of some keys that wait, after reading the object, until the test lets them go (holding their drains open). */
class Hold {
  readonly keys = new Set<string>();
  private letGo!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.letGo = resolve));

  async wait(key: string): Promise<void> {
    if (this.keys.has(key)) await this.released;
  }

  release(): void {
    this.keys.clear();
    this.letGo();
  }
}

/** Test knobs of a replica: the rejoin grace, and reconciles held by the test. */
interface ReplicaOptions {
  rejoinGraceMs?: number;
  hold?: Hold;
  /** Reconciles at once; default 4. */
  workers?: number;
  /** Lease timings; default LEASE. */
  lease?: typeof LEASE;
}

/**
 * A replica: a manager sharding Widgets, whose reconcile takes 20 ms, reads the Widget (then
 * waits while the test holds its key), removes the test finalizer from a Widget it read being
 * deleted, and asks to run again after 400 ms.
 */
function replica(
  ns: string,
  identity: string,
  log: ReconcileLog,
  rest: RestClient = live.rest(),
  options: ReplicaOptions = {},
) {
  const recording = recordingLogger(() => performance.now());
  const { logged, loggedAt } = recording;
  // Whether the cache of Widgets held its first list when this replica joined the shard set.
  let syncedWhenJoined: boolean | undefined;
  const logger: Logger = {
    ...recording.logger,
    info: (message, fields) => {
      if (message === 'joined the shard set') syncedWhenJoined = widgetInformer()?.hasSynced() ?? false;
      recording.logger.info(message, fields);
    },
    child: () => logger,
  };
  const manager = new Manager(
    electingManagerOptions(
      rest,
      ns,
      { id: 'widgets-leader', identity },
      {
        healthProbeBindAddress: '0',
        sharding: { name: 'widgets', types: [widgetResource], identity, rejoinGraceMs: options.rejoinGraceMs ?? 0 },
        gracefulShutdownTimeoutMs: 5_000,
        logger,
        ...(options.lease ?? LEASE),
      },
    ),
  );
  manager
    .controller('widget')
    .for(widgetResource)
    .withOptions({ maxConcurrentReconciles: options.workers ?? 4 })
    .complete(async (request) => {
      const key = `${request.namespace}/${request.name}`;
      if (!widgetInformer()?.indexer.get(key)) log.ofDeletion.push({ replica: identity, key, at: performance.now() });
      const done = log.record(identity, key);
      try {
        await delay(20);
        const widget = await manager.client.get(widgetResource, request).catch((err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        });
        await options.hold?.wait(key);
        if (!widget) return;
        if (widget.metadata?.deletionTimestamp && widget.metadata.finalizers?.includes(FINALIZER)) {
          await manager.client.patch(widgetResource, request, {
            type: 'merge',
            patch: { metadata: { finalizers: widget.metadata.finalizers.filter((f) => f !== FINALIZER) } },
          });
          return;
        }
      } finally {
        done();
      }
      return { requeueAfter: 400 };
    });
  const widgetInformer = () => manager.cluster.informers.find((i) => i.name.startsWith('Widget.'));
  const cached = (): string[] => widgetInformer()!.indexer.keys().sort();
  return {
    identity,
    manager,
    ...startManager(manager),
    cached,
    loggedAt,
    logged,
    syncedWhenJoined: () => syncedWhenJoined,
  };
}

type Replica = ReturnType<typeof replica>;

async function createWidgets(ns: string, count: number, finalizers = false): Promise<ResourceClient<Widget>> {
  const widgets = new ResourceClient<Widget>(live.admin, widgetResource, ns);
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      widgets.create({
        metadata: { name: `w${i}`, ...(finalizers && i % 2 === 0 ? { finalizers: [FINALIZER] } : {}) },
        spec: { size: i },
      }),
    ),
  );
  return widgets;
}

/**
 * True when the split is steady: every widget labelled and assigned to the replica that owns its
 * key on the ring of `replicas`, none draining, each replica holding some and caching exactly the
 * ones labelled for it. (Without the ring, a moment between two moves of a sharder still at work
 * can look steady.)
 */
async function settled(replicas: Replica[], widgets: ResourceClient<Widget>, ns: string, count: number) {
  const list = (await widgets.list()).items;
  if (list.length !== count) return false;
  const ring = new HashRing(replicas.map((r) => r.identity));
  const byKey = new Map<string, string | undefined>();
  for (const w of list) {
    const key = `${ns}/${w.metadata!.name}`;
    const label = w.metadata?.labels?.[SHARD_LABEL];
    if (w.metadata?.labels?.[DRAIN_LABEL] !== undefined || w.metadata?.annotations?.[SHARD_LABEL] !== label)
      return false;
    if (label !== ring.ownerOf(key)) return false;
    byKey.set(key, label);
  }
  return replicas.every((r) => {
    const want = [...byKey].filter(([, label]) => label === r.identity).map(([key]) => key);
    const held = r.cached();
    return want.length > 0 && held.length === want.length && want.every((key) => held.includes(key));
  });
}

async function stopAll(replicas: Replica[]): Promise<void> {
  await Promise.all(replicas.map((r) => r.manager.stop()));
  await Promise.all(replicas.map((r) => r.done.catch(() => undefined)));
}

describe('sharding one kind across three replicas', () => {
  it('each replica caches and reconciles only its share; a replica leaving and one joining move objects without two replicas reconciling one at once', async () => {
    const ns = await live.namespace('shards');
    const log = new ReconcileLog();
    const count = 30;
    const widgets = await createWidgets(ns, count);
    const a = replica(ns, 'a', log);
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads and runs the sharder');
    const b = replica(ns, 'b', log);
    const c = replica(ns, 'c', log);
    await waitFor(() => settled([a, b, c], widgets, ns, count), 30_000, 'the widgets split over a, b and c');
    // Each joined only with its cache listed: an object labelled for it at once reaches it as an event.
    expect([a, b, c].map((r) => r.syncedWhenJoined())).toEqual([true, true, true]);
    for (const r of [a, b, c]) {
      expect(r.cached().length).toBeGreaterThan(0);
      expect(r.cached().length).toBeLessThan(count * 0.7);
    }
    // Every widget reconciled, each by the replica that holds it.
    const holder = new Map([a, b, c].flatMap((r) => r.cached().map((key) => [key, r.identity] as const)));
    await waitFor(
      () => [...holder].every(([key, identity]) => log.reconciledBy(key).has(identity)),
      10_000,
      'every widget reconciled by its shard',
    );

    // c leaves gracefully: its objects go to a and b once its reconciles have finished.
    const cKeys = new Set(c.cached());
    await c.manager.stop();
    await c.done;
    const cStopped = performance.now();
    await waitFor(() => settled([a, b], widgets, ns, count), 15_000, 'c’s widgets move to a and b');
    await waitFor(
      () =>
        log.firstOtherThan('c', cKeys, cStopped) < Infinity &&
        [...cKeys].every((k) => log.spans.some((s) => s.key === k && s.replica !== 'c' && s.start > cStopped)),
      10_000,
      'c’s widgets reconciled by the others',
    );

    // d joins: objects drain from a and b and move to d, while every replica keeps reconciling.
    const d = replica(ns, 'd', log);
    await waitFor(() => settled([a, b, d], widgets, ns, count), 30_000, 'some widgets move to d');
    expect(d.cached().length).toBeGreaterThan(0);
    await waitFor(() => d.cached().every((key) => log.reconciledBy(key).has('d')), 10_000, 'd reconciles its share');
    await delay(1000);
    expect(log.overlaps()).toEqual([]);
    await stopAll([a, b, d]);
    expect(log.overlaps()).toEqual([]);
  });

  it('a shard label edited by hand is put back, and the replica it names never reconciles the object', async () => {
    const ns = await live.namespace('shards-edit');
    const log = new ReconcileLog();
    const count = 12;
    const widgets = await createWidgets(ns, count);
    const a = replica(ns, 'a', log);
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
    const b = replica(ns, 'b', log);
    await waitFor(() => settled([a, b], widgets, ns, count), 30_000, 'the widgets split over a and b');
    const key = a.cached()[0]!;
    const name = key.slice(ns.length + 1);
    const editedAt = performance.now();
    await widgets.patch(name, { type: 'merge', patch: { metadata: { labels: { [SHARD_LABEL]: 'b' } } } });
    // The sharder puts the label back; b saw the object meanwhile but started nothing.
    await waitFor(
      async () => (await widgets.get(name)).metadata?.labels?.[SHARD_LABEL] === 'a' && a.cached().includes(key),
      10_000,
      'the label is a again',
    );
    await delay(1000);
    expect(log.spans.filter((s) => s.key === key && s.replica === 'b' && s.end > editedAt)).toEqual([]);
    expect(log.spans.some((s) => s.key === key && s.replica === 'a' && s.start > editedAt)).toBe(true);
    // Nor did a take the object's leaving its cache for a deletion.
    expect(log.ofDeletion.filter((d) => d.key === key && d.at > editedAt)).toEqual([]);
    expect(log.overlaps()).toEqual([]);
    await stopAll([a, b]);
  });

  it('an object deleted while no member held it, seen by a leader whose replica has not joined yet, is reconciled once that replica joins', async () => {
    const ns = await live.namespace('shards-unjoined');
    const log = new ReconcileLog();
    const widgets = await createWidgets(ns, 1);
    // a leads, but its membership Lease is held back: its member cannot join until the test lets go.
    let letJoin!: () => void;
    const joining = new Promise<void>((resolve) => (letJoin = resolve));
    const rest = live.rest();
    const stalled = Object.create(rest) as RestClient;
    stalled.request = async <T>(req: Parameters<RestClient['request']>[0]): Promise<T> => {
      const body = req.body as { metadata?: { name?: string } } | undefined;
      if (
        req.path.endsWith('/leases/widgets-a') ||
        (req.path.endsWith('/leases') && body?.metadata?.name === 'widgets-a')
      )
        await joining;
      return rest.request<T>(req);
    };
    const a = replica(ns, 'a', log, stalled);
    await waitFor(() => a.loggedAt('sharder started'), 15_000, 'a leads, with no member to assign w0 to');
    await widgets.delete('w0');
    await waitFor(
      () => a.loggedAt('its deletion is reconciled once this replica joins'),
      10_000,
      'the sharder sees w0 go',
    );
    expect(log.spans).toEqual([]);
    letJoin();
    await waitFor(() => log.reconciledBy(`${ns}/w0`).has('a'), 15_000, 'a reconciles w0’s deletion once it joins');
    await stopAll([a]);
  });

  it('a replica whose Lease cannot be renewed stops reconciling before its objects move to the others', async () => {
    const ns = await live.namespace('shards-hung');
    const log = new ReconcileLog();
    const count = 20;
    const widgets = await createWidgets(ns, count);
    const a = replica(ns, 'a', log);
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
    const proxy = await TcpProxy.start(live.plane.server);
    const x = replica(ns, 'x', log, live.rest(proxy.url));
    await waitFor(() => settled([a, x], widgets, ns, count), 30_000, 'the widgets split over a and x');
    const xKeys = new Set(x.cached());
    expect(xKeys.size).toBeGreaterThan(0);
    await waitFor(() => [...xKeys].every((k) => log.reconciledBy(k).has('x')), 10_000, 'x reconciles its share');
    // x's connections hang: its renewals never answer, yet its reconciles keep coming (requeueAfter).
    proxy.hang();
    const frozenAt = performance.now();
    await waitFor(() => x.failure(), 15_000, 'x gives up its shard');
    expect(x.failure()).toBeInstanceOf(LeaderElectionLostError);
    await waitFor(() => settled([a], widgets, ns, count), 15_000, 'x’s widgets move to a');
    await waitFor(
      () => [...xKeys].every((k) => log.spans.some((s) => s.key === k && s.replica === 'a' && s.start > frozenAt)),
      10_000,
      'a reconciles x’s widgets',
    );
    const xLastEnd = log.lastBy('x', xKeys);
    const aFirst = log.firstOtherThan('x', xKeys, frozenAt);
    expect(xLastEnd).toBeLessThan(aFirst);
    // x stopped at its renew deadline; a took over only after x's Lease expired.
    expect(aFirst - frozenAt).toBeGreaterThanOrEqual(LEASE.leaseDurationMs - 500);
    expect(log.overlaps()).toEqual([]);
    proxy.restore();
    await stopAll([a, x]);
    await proxy.close();
  });
  it('after every replica restarts, a member that rejoins within the grace keeps its objects; an absent one’s move when the grace ends', async () => {
    const ns = await live.namespace('shards-restart');
    const log = new ReconcileLog();
    const count = 30;
    const graceMs = 12_000;
    const widgets = await createWidgets(ns, count);
    const opts = { rejoinGraceMs: graceMs };
    const a = replica(ns, 'a', log, live.rest(), opts);
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
    const b = replica(ns, 'b', log, live.rest(), opts);
    const c = replica(ns, 'c', log, live.rest(), opts);
    await waitFor(() => settled([a, b, c], widgets, ns, count), 30_000, 'the widgets split over a, b and c');

    // Every replica stops; a and b come back under the same identities, c does not. The leader
    // goes first: a sharder still running would move the objects of a member that stops before
    // it, while a sharder elected meanwhile starts with the grace and keeps them.
    await stopAll([a]);
    await stopAll([b, c]);
    const labelled = async (member: string) =>
      new Set(
        (await widgets.list()).items
          .filter((w) => w.metadata?.labels?.[SHARD_LABEL] === member)
          .map((w) => `${ns}/${w.metadata!.name}`),
      );
    const bKeys = await labelled('b');
    const cKeys = await labelled('c');
    expect(bKeys.size).toBeGreaterThan(1);
    expect(cKeys.size).toBeGreaterThan(1);
    const restarted = performance.now();
    const a2 = replica(ns, 'a', log, live.rest(), opts);
    await waitFor(
      () => a2.loggedAt('keeping the objects of members'),
      15_000,
      'a’s new sharder keeps the absent members’ objects',
    );
    const graceFrom = a2.loggedAt('keeping the objects of members')!;
    await delay(1000);
    const b2 = replica(ns, 'b', log, live.rest(), opts);
    await waitFor(
      () => [...bKeys].every((k) => log.spans.some((s) => s.key === k && s.replica === 'b' && s.start > restarted)),
      graceMs,
      'b reconciles its own widgets again',
    );
    expect(b2.cached()).toEqual([...bKeys].sort());
    // Deleted while its member is away: the sharder's replica reconciles the deletion.
    const [gone, ...cKept] = [...cKeys];
    const deletedAt = performance.now();
    await widgets.delete(gone!.slice(ns.length + 1));
    await waitFor(
      () => log.spans.some((s) => s.key === gone && s.start > deletedAt),
      10_000,
      'the deletion of the absent member’s widget is reconciled',
    );

    // The grace ends (2 of 3 members are back): c's widgets move to a and b.
    await waitFor(() => a2.loggedAt('the grace for members to come back is over'), 20_000, 'the grace ends');
    const graceOver = a2.loggedAt('the grace for members to come back is over')!;
    expect(graceOver - graceFrom).toBeGreaterThanOrEqual(graceMs - 100);
    await waitFor(() => settled([a2, b2], widgets, ns, count - 1), 20_000, 'c’s widgets move to a and b');
    await waitFor(
      () => cKept.every((k) => log.spans.some((s) => s.key === k && s.replica !== 'c' && s.start > restarted)),
      10_000,
      'c’s widgets reconciled by a or b',
    );
    // b's widgets never went to a; c's were reconciled by nobody before the grace ended.
    expect(log.spans.filter((s) => bKeys.has(s.key) && s.replica === 'a' && s.start > restarted)).toEqual([]);
    expect(log.spans.filter((s) => cKept.includes(s.key) && s.start > restarted && s.start < graceOver)).toEqual([]);
    expect(log.overlaps()).toEqual([]);
    await stopAll([a2, b2]);
  });

  it('objects deleted while they move, or while a reconcile that read them runs, are reconciled: by the member draining them, the new one through their finalizer, or their holder', async () => {
    const ns = await live.namespace('shards-delete');
    const log = new ReconcileLog();
    const count = 40;
    const widgets = await createWidgets(ns, count, true);
    const hold = new Hold();
    // Longer Leases: a replica that lost its own on a loaded machine would take its deletions with it.
    const lease = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 1000 };
    // Eight workers: up to five held reconciles may fall on one replica.
    const a = replica(ns, 'a', log, live.rest(), { hold, lease, workers: 8 });
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
    const b = replica(ns, 'b', log, live.rest(), { hold, lease, workers: 8 });
    await waitFor(() => settled([a, b], widgets, ns, count), 30_000, 'the widgets split over a and b');
    // Up to two widgets of each kind that c will take (even-numbered ones carry the finalizer). Their reconciles are held after reading them, so
    // their drains stay open until the test lets go.
    const ring = new HashRing(['a', 'b', 'c']);
    const moving = Array.from({ length: count }, (_, i) => `${ns}/w${i}`).filter((k) => ring.ownerOf(k) === 'c');
    const isEven = (key: string) => Number(key.slice(ns.length + 2)) % 2 === 0;
    const withFinalizer = moving.filter(isEven).slice(0, 2);
    const without = moving.filter((k) => !isEven(k)).slice(0, 2);
    expect(withFinalizer.length).toBeGreaterThan(0);
    expect(without.length).toBeGreaterThan(0);
    // And one that stays where it is, deleted while a reconcile that read it before is still running.
    const staying = Array.from({ length: count }, (_, i) => `${ns}/w${i}`).find(
      (k) => !isEven(k) && ring.ownerOf(k) !== 'c' && ring.ownerOf(k) === new HashRing(['a', 'b']).ownerOf(k),
    )!;
    const names = [...withFinalizer, ...without, staying];
    for (const key of names) hold.keys.add(key);
    await waitFor(() => names.every((k) => log.isRunning(k)), 10_000, 'a held reconcile of each chosen widget');
    const c = replica(ns, 'c', log, live.rest(), { hold, lease, workers: 8 });
    await waitFor(
      async () => {
        const draining = (await widgets.list()).items
          .filter((w) => w.metadata?.labels?.[DRAIN_LABEL] !== undefined)
          .map((w) => `${ns}/${w.metadata!.name}`);
        return [...withFinalizer, ...without].every((k) => draining.includes(k));
      },
      20_000,
      'the chosen widgets draining',
    );
    const deletedAt = performance.now();
    for (const key of names) await widgets.delete(key.slice(ns.length + 1));
    // The held reconciles read the widgets before their deletion: the deletions' own reconciles come after.
    hold.release();
    const reconciledAfter = (k: string) => log.spans.filter((s) => s.key === k && s.start > deletedAt);
    await waitFor(() => names.every((k) => reconciledAfter(k).length > 0), 20_000, 'every deletion reconciled');
    // Gone at once, a widget without the finalizer never reached c: the member draining it reconciled its deletion.
    for (const key of without) expect(reconciledAfter(key).map((s) => s.replica)).not.toContain('c');
    expect(reconciledAfter(staying).map((s) => s.replica)).toEqual([ring.ownerOf(staying)]);
    await waitFor(
      async () => {
        for (const k of withFinalizer) {
          const found = await widgets.get(k.slice(ns.length + 1)).catch((err: unknown) => {
            if (isNotFound(err)) return undefined;
            throw err;
          });
          if (found) return false;
        }
        return true;
      },
      20_000,
      'the widgets with a finalizer are gone',
    );
    // A widget kept by its finalizer moved on to c, which let it go.
    for (const key of withFinalizer) expect(reconciledAfter(key).map((s) => s.replica)).toContain('c');
    await waitFor(
      () => settled([a, b, c], widgets, ns, count - names.length),
      30_000,
      'the rest settle over a, b and c',
    );
    expect(log.overlaps()).toEqual([]);
    await stopAll([a, b, c]);
  });
});
