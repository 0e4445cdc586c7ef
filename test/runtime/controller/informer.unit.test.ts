import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { KubernetesObject, ObjectList } from '../../../src/runtime/index.js';
import type { ListOptions, WatchEvent, WatchOptions } from '../../../src/runtime/client/resource/options.js';
import { ApiError } from '../../../src/runtime/index.js';
import { CacheScopeError } from '../../../src/runtime/cache/lister.js';
import { Informer, stripManagedFields } from '../../../src/runtime/cache/informer.js';
import type { ListerWatcher } from '../../../src/runtime/cache/informer.js';
import { FakeClock } from './fake-clock.js';
import { waitFor } from './helpers.js';

type Obj = KubernetesObject & {
  metadata: { name: string; namespace?: string; resourceVersion?: string; managedFields?: unknown[] };
  value?: number;
};

/** An in-memory API: objects with a revision counter, an event log, lists and watches from a revision, and compaction. */
class FakeApi implements ListerWatcher<Obj> {
  private revision = 1;
  private readonly objects = new Map<string, Obj>();
  private readonly log: Array<{ rev: number; event: WatchEvent<Obj> }> = [];
  private compactedThrough = 0;
  private readonly wakers = new Set<() => void>();
  lists = 0;
  watches: string[] = [];
  /** While set, a list waits for it (an apiserver slow to answer this source). */
  listGate: Promise<void> | undefined;

  constructor(private readonly namespace = 'ns') {}
  /** When set, watches end right after delivering what is pending (like a server-side timeout). */
  closeWatchesWhenIdle = false;

  put(name: string, value: number): void {
    const rev = ++this.revision;
    const existed = this.objects.has(name);
    const object: Obj = {
      metadata: { name, namespace: this.namespace, resourceVersion: String(rev), managedFields: [{ manager: 'x' }] },
      value,
    };
    this.objects.set(name, object);
    this.emit(rev, { type: existed ? 'MODIFIED' : 'ADDED', object });
  }

  remove(name: string): void {
    const object = this.objects.get(name)!;
    this.objects.delete(name);
    const rev = ++this.revision;
    this.emit(rev, {
      type: 'DELETED',
      object: { ...object, metadata: { ...object.metadata, resourceVersion: String(rev) } },
    });
  }

  compact(): void {
    this.compactedThrough = this.revision;
  }

  async list(_options: ListOptions): Promise<ObjectList<Obj>> {
    this.lists++;
    await this.listGate;
    return { metadata: { resourceVersion: String(this.revision) }, items: [...this.objects.values()] };
  }

  async *watch(options: WatchOptions): AsyncGenerator<WatchEvent<Obj>> {
    this.watches.push(options.resourceVersion ?? '');
    let from = Number(options.resourceVersion);
    if (from < this.compactedThrough)
      throw new ApiError({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }, 'WATCH', '/fake');
    for (;;) {
      const pending = this.log.filter((entry) => entry.rev > from);
      for (const entry of pending) {
        from = entry.rev;
        yield entry.event;
      }
      if (this.closeWatchesWhenIdle) return;
      if (options.signal?.aborted) return;
      await new Promise<void>((resolve) => {
        this.wakers.add(resolve);
        options.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      if (options.signal?.aborted) return;
    }
  }

  private emit(rev: number, event: WatchEvent<Obj>): void {
    this.log.push({ rev, event });
    for (const wake of this.wakers) wake();
    this.wakers.clear();
  }
}

function record(informer: Informer<Obj>) {
  const events: string[] = [];
  informer.addEventHandler({
    onAdd: (o, initial) => events.push(`add ${o.metadata.name}${initial ? ' (initial)' : ''}`),
    onUpdate: (a, b) => events.push(`update ${b.metadata.name} ${a.value}->${b.value}`),
    onDelete: (o, info) =>
      events.push(`delete ${o.metadata.name} ${o.value}${info.finalStateUnknown ? ' (final state unknown)' : ''}`),
  });
  return events;
}

describe('Informer (in-memory API)', () => {
  it('delivers the initial list, then watch events from the list resourceVersion, and replays the cache to late handlers', async () => {
    const api = new FakeApi();
    api.put('a', 1);
    const informer = new Informer<Obj>(api, { transform: stripManagedFields });
    const events = record(informer);
    informer.start();
    await informer.waitForSync();
    api.put('b', 1);
    api.put('a', 2);
    api.remove('b');
    await waitFor(() => events.length === 4, 2000);
    expect(events).toEqual(['add a (initial)', 'add b', 'update a 1->2', 'delete b 1']);
    expect(api.watches).toEqual(['2']);
    expect(informer.lister.get('ns', 'a')?.metadata.managedFields).toBeUndefined();
    const late: string[] = [];
    informer.addEventHandler({ onAdd: (o, initial) => late.push(`${o.metadata.name} ${initial}`) });
    expect(late).toEqual(['a true']);
    await informer.stop();
  });

  it('re-watches from the last resourceVersion when a watch ends, and relists on 410 with final-state-unknown deletes', async () => {
    const api = new FakeApi();
    api.put('a', 1);
    api.put('b', 1);
    api.closeWatchesWhenIdle = true;
    const informer = new Informer<Obj>(api, { initialBackoffMs: 10, maxBackoffMs: 20 });
    const events = record(informer);
    informer.start();
    await informer.waitForSync();
    api.put('a', 2);
    await waitFor(() => events.includes('update a 1->2'), 2000);
    // The informer falls behind a compaction: its next watch gets 410, it relists.
    api.remove('b');
    api.put('c', 1);
    api.compact();
    await waitFor(() => api.lists === 2 && events.length >= 5, 3000);
    expect(events.slice(2)).toEqual(
      expect.arrayContaining(['update a 1->2', 'delete b 1 (final state unknown)', 'add c']),
    );
    expect(
      informer.lister
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
    await informer.stop();
  });

  it('replays every cached object as an update on each resync period', async () => {
    const api = new FakeApi();
    api.put('a', 1);
    const informer = new Informer<Obj>(api, { resyncPeriodMs: 50 });
    const events = record(informer);
    informer.start();
    await waitFor(() => events.filter((e) => e === 'update a 1->1').length >= 2, 2000);
    await informer.stop();
  });

  it('takes a watch for silent only after a whole window without events, with one timer per watch', async () => {
    const api = new FakeApi();
    api.put('a', 1);
    const clock = new FakeClock();
    const restarts: string[] = [];
    const informer = new Informer<Obj>(api, {
      clock,
      silentWatchTimeoutMs: 1000,
      initialBackoffMs: 10,
      onWatchRestart: (r) => restarts.push(r),
    });
    const events = record(informer);
    informer.start();
    await informer.waitForSync();
    await waitFor(() => api.watches.length === 1, 2000);
    // Events every 600 ms keep a 1 s window from expiring, over three windows' time.
    for (let value = 2; value <= 6; value++) {
      clock.advance(600);
      api.put('a', value);
      await waitFor(() => events.includes(`update a ${value - 1}->${value}`), 2000);
      expect(clock.pendingTimers).toBe(1);
    }
    expect(restarts).toEqual([]);
    clock.advance(1000);
    await waitFor(() => restarts.includes('silent'), 2000);
    expect(api.watches.length).toBe(1);
    clock.advance(100); // the backoff before the next watch
    await waitFor(() => api.watches.length === 2, 2000);
    await informer.stop();
  });
  it('keeps no delivered event alive while its watch stays open: an object replaced in the cache can be collected', async () => {
    // A watch lasts minutes and may deliver thousands of events; whatever the informer keeps
    // per event (a reaction on a promise that lives as long as the watch, say) grows with them.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const pending: WatchEvent<Obj>[] = [];
    let wake: () => void = () => undefined;
    const source: ListerWatcher<Obj> = {
      list: async () => ({ metadata: { resourceVersion: '1' }, items: [] }),
      async *watch(options) {
        options.signal?.addEventListener('abort', () => wake(), { once: true });
        for (;;) {
          while (pending.length > 0) yield pending.shift()!;
          await new Promise<void>((resolve) => (wake = resolve));
          if (options.signal?.aborted) return;
        }
      },
    };
    const informer = new Informer<Obj>(source, { silentWatchTimeoutMs: 600_000 });
    informer.start();
    await informer.waitForSync();
    const versions: WeakRef<Obj>[] = [];
    for (let value = 1; value <= 40; value++) {
      const object: Obj = { metadata: { name: 'a', namespace: 'ns', resourceVersion: String(value + 1) }, value };
      versions.push(new WeakRef(object));
      pending.push({ type: value === 1 ? 'ADDED' : 'MODIFIED', object });
      wake();
      await waitFor(() => informer.lister.get('ns', 'a')?.value === value, 2000);
    }
    // WeakRefs are cleared by a collection after the current job: collect between turns.
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    const alive = versions.slice(0, -1).filter((ref) => ref.deref() !== undefined).length;
    expect(alive).toBeLessThanOrEqual(2);
    await informer.stop();
  });

  it('caches several namespaces from one source each, as one cache: synced once all are, a relist of one keeps the others', async () => {
    const a = new FakeApi('a');
    const b = new FakeApi('b');
    a.put('x', 1);
    b.put('y', 1);
    b.put('z', 1);
    b.closeWatchesWhenIdle = true;
    let release!: () => void;
    b.listGate = new Promise((resolve) => (release = resolve));
    const informer = new Informer<Obj>(
      [
        { namespace: 'a', source: a },
        { namespace: 'b', source: b },
      ],
      { name: 'objs', initialBackoffMs: 10, maxBackoffMs: 20 },
    );
    informer.start();
    await waitFor(() => a.watches.length === 1, 2000);
    // Namespace a is in, b still lists: not synced, and a handler added now still sees a's objects.
    expect(informer.hasSynced()).toBe(false);
    const events = record(informer);
    expect(events).toEqual(['add x (initial)']);
    release();
    await informer.waitForSync();
    expect(events).toEqual(['add x (initial)', 'add y (initial)', 'add z (initial)']);
    expect(
      informer.lister
        .list()
        .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
        .sort(),
    ).toEqual(['a/x', 'b/y', 'b/z']);
    expect(informer.lister.list({ namespace: 'b' }).map((o) => o.metadata.name)).toEqual(['y', 'z']);
    expect(informer.lister.get('a', 'x')?.value).toBe(1);
    expect(() => informer.lister.get('c', 'x')).toThrow(CacheScopeError);
    expect(() => informer.lister.list({ namespace: 'c' })).toThrow('the cache holds namespaces "a", "b" only');
    // Each namespace watches from its own list's resourceVersion.
    expect(a.watches).toEqual(['2']);

    // b falls behind a compaction and relists: only b's part of the cache is replaced.
    b.remove('z');
    b.compact();
    await waitFor(() => b.lists === 2 && events.length >= 4, 3000);
    a.put('x', 2);
    await waitFor(() => events.includes('update x 1->2'), 2000);
    expect(events.slice(3)).toEqual(['delete z 1 (final state unknown)', 'update x 1->2']);
    expect(informer.stats).toMatchObject({ name: 'objs', objects: 2, relists: 1, synced: true });
    expect(informer.lastSyncResourceVersion).toBe('');
    await informer.stop();
  });

  it('refuses namespace sources that cannot work, naming the informer', () => {
    const api = new FakeApi();
    expect(() => new Informer<Obj>([], { name: 'objs' })).toThrow('informer objs: no namespace given');
    expect(
      () =>
        new Informer<Obj>(
          [
            { namespace: 'a', source: api },
            { namespace: 'a', source: api },
          ],
          { name: 'objs' },
        ),
    ).toThrow('informer objs: namespace "a" is given twice');
    expect(() => new Informer<Obj>([{ namespace: 'a', source: api }], { name: 'objs', namespace: 'b' })).toThrow(
      'options.namespace and one source per namespace given',
    );
  });
});
