// Warm standby on a real apiserver: with `warmStandby` a replica that does not lead lists and
// watches its controllers' kinds, never reconciles, and on taking the lease reconciles every
// object (one created while it stood by included) from that cache, without listing again.
// Without it (the default) a standby holds nothing of those kinds and lists them once it leads.
import { describe, expect, it } from 'vitest';
import { Manager } from '../../../src/runtime/index.js';
import { LeaderElectionLostError } from '../../../src/runtime/manager/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import {
  FAST_LEASE,
  electingManagerOptions,
  recordingLogger,
  startManager,
  useLiveCluster,
} from '../../helpers/live-cluster.js';
import { TcpProxy, delay, waitFor, widgetResource } from '../controller/helpers.js';

const live = useLiveCluster();
const OBJECTS = 30;

/** A replica: a manager with a widget controller that records what it reconciles, and its log lines with their time. */
function replica(ns: string, identity: string, warmStandby: boolean | undefined, rest: RestClient = live.rest()) {
  const { logger, loggedAt } = recordingLogger();
  const manager = new Manager(
    electingManagerOptions(
      rest,
      ns,
      { id: 'standby-leader', identity },
      { logger, ...(warmStandby === undefined ? {} : { warmStandby }) },
    ),
  );
  const reconciled: string[] = [];
  manager
    .controller('widget')
    .for(widgetResource)
    .complete((request) => void reconciled.push(request.name));
  return {
    manager,
    reconciled,
    ...startManager(manager),
    loggedAt,
    /** The widget informer's figures (objects held, lists, last list) as /metrics and /debug/cache report them. */
    widgets: () => manager.cluster.informers.find((i) => i.name === 'Widget.test.kop.dev')!.stats,
    ready: async () => (await fetch(`http://${manager.healthProbeAddress}/readyz`)).status,
  };
}

async function createWidgets(ns: string, names: string[]): Promise<void> {
  await Promise.all(names.map((name) => live.client.create(widgetResource, { metadata: { name, namespace: ns } })));
}

const initial = Array.from({ length: OBJECTS }, (_, i) => `w${i}`);

describe('warm standby', () => {
  it('a warm standby caches before it leads, never reconciles, and takes over from that cache when the leader loses its lease', async () => {
    const ns = await live.namespace('standby-warm');
    await createWidgets(ns, initial);
    const proxy = await TcpProxy.start(live.plane.server);
    const a = replica(ns, 'a', true, live.rest(proxy.url));
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
    await waitFor(() => a.reconciled.length >= OBJECTS, 15_000, 'a reconciles');
    const b = replica(ns, 'b', true);
    await waitFor(() => b.widgets().synced, 15_000, "b's cache syncs while a leads");
    expect(b.widgets().objects).toBe(OBJECTS);
    // Ready: a synced standby can serve webhooks and reads; it is not the leader.
    await waitFor(async () => (await b.ready()) === 200, 5_000, 'b ready');
    await createWidgets(ns, ['late']);
    await waitFor(() => a.reconciled.includes('late'), 10_000, 'a reconciles the late widget');
    await waitFor(() => b.widgets().objects === OBJECTS + 1, 10_000, "the late widget in b's cache");
    await delay(FAST_LEASE.leaseDurationMs);
    expect(b.manager.isLeader).toBe(false);
    expect(b.reconciled).toEqual([]);
    const standbyList = b.widgets();

    // The leader is cut off from the apiserver: it steps down at its renew deadline (its
    // reconciles stop), and b takes the lease once it expires.
    proxy.cut();
    await waitFor(() => a.failure(), 10_000, 'a gives up');
    expect(a.failure()).toBeInstanceOf(LeaderElectionLostError);
    const reconciledByA = a.reconciled.length;
    await waitFor(() => b.manager.isLeader, 10_000, 'b leads');
    const acquiredAt = b.loggedAt('acquired the leader lease')!;
    expect(a.loggedAt('lost the leader lease')!).toBeLessThan(acquiredAt);
    await waitFor(() => b.reconciled.length >= OBJECTS + 1, 10_000, 'b reconciles every widget');
    expect(new Set(b.reconciled)).toEqual(new Set([...initial, 'late']));
    // No list between taking the lease and reconciling: the cache b built while it stood by served it.
    expect(b.widgets().lastSyncTime).toBe(standbyList.lastSyncTime);
    expect(standbyList.lastSyncTime!).toBeLessThan(acquiredAt);
    expect(b.widgets().relists).toBe(0);
    expect(b.loggedAt('controller caches synced')).toBeUndefined();
    expect(a.reconciled.length).toBe(reconciledByA);
    await b.manager.stop();
    await b.done;
    await proxy.close();
  });

  it('without warmStandby a standby caches none of its controllers’ kinds, is ready, and lists them once it leads', async () => {
    const ns = await live.namespace('standby-cold');
    await createWidgets(ns, initial);
    const a = replica(ns, 'a', undefined);
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
    await waitFor(() => a.reconciled.length >= OBJECTS, 15_000, 'a reconciles');
    const b = replica(ns, 'b', undefined);
    // Ready without the controller's cache: it has nothing to serve from it until it leads.
    await waitFor(async () => (await b.ready()) === 200, 15_000, 'b ready');
    await createWidgets(ns, ['late']);
    await waitFor(() => a.reconciled.includes('late'), 10_000, 'a reconciles the late widget');
    await delay(FAST_LEASE.leaseDurationMs);
    expect(b.manager.isLeader).toBe(false);
    expect(b.reconciled).toEqual([]);
    expect(b.widgets()).toMatchObject({ objects: 0, synced: false, lastSyncTime: undefined });

    await a.manager.stop();
    await a.done;
    await waitFor(() => b.manager.isLeader, FAST_LEASE.leaseDurationMs, 'b takes over');
    await waitFor(() => b.reconciled.length >= OBJECTS + 1, 10_000, 'b reconciles every widget');
    expect(new Set(b.reconciled)).toEqual(new Set([...initial, 'late']));
    // The list came after the lease: the failover waited for it.
    expect(b.widgets().lastSyncTime!).toBeGreaterThanOrEqual(b.loggedAt('acquired the leader lease')!);
    expect(b.loggedAt('controller caches synced')).toBeDefined();
    await b.manager.stop();
    await b.done;
  });

  it('a cached read of a controller’s kind on a standby without warmStandby fills that cache, and still nothing is reconciled', async () => {
    const ns = await live.namespace('standby-read');
    await createWidgets(ns, initial);
    const a = replica(ns, 'a', undefined);
    await waitFor(() => a.manager.isLeader, 15_000, 'a leads');
    const b = replica(ns, 'b', undefined);
    await waitFor(async () => (await b.ready()) === 200, 15_000, 'b ready');
    expect(b.widgets().objects).toBe(0);
    // What a runnable every replica runs might do: the read starts the informer and waits for its list.
    const listed = await b.manager.client.list(widgetResource, { namespace: ns });
    expect(listed.items).toHaveLength(OBJECTS);
    expect(b.widgets()).toMatchObject({ objects: OBJECTS, synced: true });
    await delay(FAST_LEASE.leaseDurationMs);
    expect(b.reconciled).toEqual([]);
    await b.manager.stop();
    await b.done;
    await a.manager.stop();
    await a.done;
  });
});
