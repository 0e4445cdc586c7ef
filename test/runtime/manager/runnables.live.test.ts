// The manager's runnable groups on a real apiserver: servers, caches, others and leader-gated
// runnables start in that order and stop in the reverse one, a second cluster is one more cache,
// a standby runs only what needs no lease, and a failing runnable stops the manager with its error.
import { describe, expect, it } from 'vitest';
import { Manager, silentLogger } from '../../../src/runtime/index.js';
import { coordinationV1LeaseType } from '../../../src/runtime/builtin/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import { Cluster, type Runnable } from '../../../src/runtime/manager/index.js';
import { FAST_LEASE, electingManagerOptions, useLiveCluster } from '../../helpers/live-cluster.js';
import { delay, waitFor, widgetResource } from '../controller/helpers.js';

const live = useLiveCluster();

function newManager(ns: string, identity: string, rest: RestClient = live.rest()): Manager {
  return new Manager(
    electingManagerOptions(
      rest,
      ns,
      { id: 'runnables-leader', identity },
      // The controllers' caches fill before the lease, as the order test expects (warm-standby.live.test.ts covers both).
      { logger: silentLogger, warmStandby: true },
    ),
  );
}

/** Whether the manager's probe server answers now. */
async function probesAnswer(manager: Manager): Promise<boolean> {
  try {
    return (await fetch(`http://${manager.healthProbeAddress}/healthz`)).ok;
  } catch {
    return false;
  }
}

async function leaseHolder(ns: string): Promise<string | undefined> {
  const lease = await live.client.get(coordinationV1LeaseType, { namespace: ns, name: 'runnables-leader' });
  return lease.spec?.holderIdentity || undefined;
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

describe('runnable groups', () => {
  it('start servers, caches, others, then leader-gated runnables once the lease is held; stop in the reverse order', async () => {
    const ns = await live.namespace('runnables-order');
    const manager = newManager(ns, 'a');
    // Each step is recorded when it happens, with what is true at that moment; what needs a request is filled in after.
    const seen: Array<{ step: string; [observed: string]: unknown }> = [];
    const record = (step: string, now: Record<string, unknown>, later?: () => Promise<Record<string, unknown>>) => {
      const entry = { step, ...now };
      seen.push(entry);
      return later?.().then((values) => Object.assign(entry, values));
    };
    const reconciledAfterGatedStart: boolean[] = [];
    manager
      .controller('widget')
      .for(widgetResource)
      .complete(() => void reconciledAfterGatedStart.push(seen.some((s) => s.step === 'gated started')));
    // A second cluster (the same apiserver, seen through its own client and cache) joins the caches.
    const second = new Cluster({ rest: live.rest(), namespace: ns, logger: silentLogger });
    second.informerFor(widgetResource);
    manager.add(second);
    const every: Runnable = {
      needLeaderElection: false,
      start: async (signal) => {
        await record(
          'others started',
          {
            synced: manager.informerFor(widgetResource).hasSynced() && second.informerFor(widgetResource).hasSynced(),
            leader: manager.isLeader,
          },
          async () => ({ probes: await probesAnswer(manager) }),
        );
        await untilAborted(signal);
        await record('others stopping', { cacheRunning: manager.informersStarted && second.started }, async () => ({
          holder: await leaseHolder(ns),
          probes: await probesAnswer(manager),
        }));
      },
    };
    const gated: Runnable = {
      start: async (signal) => {
        await record('gated started', { leader: manager.isLeader }, async () => ({ holder: await leaseHolder(ns) }));
        await untilAborted(signal);
        await record('gated stopping', { cacheRunning: manager.informersStarted }, async () => ({
          holder: await leaseHolder(ns),
        }));
        // The others wait for this: they stop only once the gated ones have returned.
        await delay(300);
        await record('gated stopped', {});
      },
    };
    manager.add(every);
    manager.add(gated);
    await live.client.create(widgetResource, { metadata: { name: 'w1', namespace: ns } });

    const done = manager.start();
    await waitFor(() => reconciledAfterGatedStart.length > 0, 15_000, 'a reconcile');
    await waitFor(
      () => seen.some((s) => s.step === 'gated started' && 'holder' in s),
      5_000,
      'the gated runnable saw the lease',
    );
    await manager.stop();
    await done;

    expect(seen).toEqual([
      { step: 'others started', synced: true, leader: false, probes: true },
      { step: 'gated started', leader: true, holder: 'a' },
      { step: 'gated stopping', cacheRunning: true, holder: 'a' },
      { step: 'gated stopped' },
      // The lease is released once the gated runnables have stopped, before the others stop.
      { step: 'others stopping', cacheRunning: true, holder: undefined, probes: true },
    ]);
    // The controller is gated too: it reconciles once the lease is held.
    expect(reconciledAfterGatedStart[0]).toBe(true);
    // Caches, then servers, stop last.
    expect(manager.informersStarted).toBe(false);
    expect(second.started).toBe(false);
    expect(await probesAnswer(manager)).toBe(false);
  });

  it('a standby runs the runnables that need no lease and starts the gated ones when it takes over', async () => {
    const ns = await live.namespace('runnables-standby');
    const started: string[] = [];
    const track = (manager: Manager, name: string): void => {
      manager.add({
        needLeaderElection: false,
        start: (signal) => (started.push(`${name} every`), untilAborted(signal)),
      });
      manager.add({
        needLeaderElection: true,
        start: (signal) => (started.push(`${name} gated`), untilAborted(signal)),
      });
    };
    const a = newManager(ns, 'a');
    track(a, 'a');
    const aDone = a.start();
    await waitFor(() => a.isLeader, 15_000, 'a leads');
    const b = newManager(ns, 'b');
    track(b, 'b');
    const bDone = b.start();
    await waitFor(() => started.includes('b every'), 15_000, 'b runs what needs no lease');
    await delay(FAST_LEASE.leaseDurationMs);
    expect(started).toEqual(['a every', 'a gated', 'b every']);
    expect(b.isLeader).toBe(false);

    await a.stop();
    await aDone;
    await waitFor(() => b.isLeader, FAST_LEASE.leaseDurationMs, 'b takes over');
    expect(started).toEqual(['a every', 'a gated', 'b every', 'b gated']);
    // Added while running, a runnable joins its group at once.
    const late: string[] = [];
    b.add({ start: (signal) => (late.push('late gated'), untilAborted(signal)) });
    expect(late).toEqual(['late gated']);
    await b.stop();
    await bDone;
    expect(() => b.add({ start: () => undefined })).toThrow(/stopping/);
  });

  it('a runnable that fails stops the manager, which rejects with its error after stopping everything', async () => {
    const ns = await live.namespace('runnables-fail');
    const manager = newManager(ns, 'a');
    let reconcileAborted: boolean | undefined;
    let controllerStopped = false;
    manager
      .controller('widget')
      .for(widgetResource)
      .complete(async (_request, { signal }) => {
        await delay(300);
        reconcileAborted = signal.aborted;
        controllerStopped = true;
      });
    const failure = new Error('the standby cache could not be filled');
    manager.add({
      needLeaderElection: false,
      start: async () => {
        await waitFor(() => manager.isLeader, 15_000, 'the manager leads');
        await live.client.create(widgetResource, { metadata: { name: 'w1', namespace: ns } });
        await delay(100); // the reconcile is in flight now
        throw failure;
      },
    });
    await expect(manager.start()).rejects.toBe(failure);
    // A failure is not a lost lease: reconciles in flight finished gracefully, and everything stopped.
    expect(controllerStopped).toBe(true);
    expect(reconcileAborted).toBe(false);
    expect(manager.isLeader).toBe(false);
    expect(manager.informersStarted).toBe(false);
    expect(await probesAnswer(manager)).toBe(false);
    expect(await leaseHolder(ns)).toBeUndefined();
  });
});
