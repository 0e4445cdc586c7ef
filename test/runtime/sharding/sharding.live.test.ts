import { describe, expect, it } from 'vitest';
import { Manager } from '../../../src/runtime/index.js';
import { LeaderElectionLostError } from '../../../src/runtime/manager/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import type { Widget } from '../controller/helpers.js';
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

/** A replica: a manager sharding Widgets, whose reconcile takes 20 ms and asks to run again after 400 ms. */
function replica(ns: string, identity: string, log: ReconcileLog, rest: RestClient = live.rest()) {
  const { logger, logged, loggedAt } = recordingLogger(() => performance.now());
  const manager = new Manager(
    electingManagerOptions(
      rest,
      ns,
      { id: 'widgets-leader', identity },
      {
        healthProbeBindAddress: '0',
        sharding: { name: 'widgets', types: [widgetResource], identity },
        gracefulShutdownTimeoutMs: 5_000,
        logger,
        ...LEASE,
      },
    ),
  );
  manager
    .controller('widget')
    .for(widgetResource)
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete(async (request) => {
      const done = log.record(identity, `${request.namespace}/${request.name}`);
      try {
        await delay(20);
      } finally {
        done();
      }
      return { requeueAfter: 400 };
    });
  const cached = (): string[] =>
    manager.cluster.informers
      .find((i) => i.name.startsWith('Widget.'))!
      .indexer.keys()
      .sort();
  return { identity, manager, ...startManager(manager), cached, loggedAt, logged };
}

type Replica = ReturnType<typeof replica>;

async function createWidgets(ns: string, count: number): Promise<ResourceClient<Widget>> {
  const widgets = new ResourceClient<Widget>(live.admin, widgetResource, ns);
  await Promise.all(
    Array.from({ length: count }, (_, i) => widgets.create({ metadata: { name: `w${i}` }, spec: { size: i } })),
  );
  return widgets;
}

/**
 * True when the split is steady: every widget labelled and assigned to one of `replicas`, none
 * draining, each replica holding some and caching exactly the ones labelled for it.
 */
async function settled(replicas: Replica[], widgets: ResourceClient<Widget>, ns: string, count: number) {
  const list = (await widgets.list()).items;
  if (list.length !== count) return false;
  const byKey = new Map<string, string | undefined>();
  for (const w of list) {
    const label = w.metadata?.labels?.[SHARD_LABEL];
    if (w.metadata?.labels?.[DRAIN_LABEL] !== undefined || w.metadata?.annotations?.[SHARD_LABEL] !== label)
      return false;
    byKey.set(`${ns}/${w.metadata!.name}`, label);
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
    expect(log.overlaps()).toEqual([]);
    await stopAll([a, b]);
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
});
