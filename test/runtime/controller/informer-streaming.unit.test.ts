import { describe, expect, it } from 'vitest';
import type { KubernetesObject, ObjectList } from '../../../src/runtime/index.js';
import type { ListOptions, WatchEvent, WatchOptions } from '../../../src/runtime/client/resource/options.js';
import { ApiError } from '../../../src/runtime/index.js';
import { Informer } from '../../../src/runtime/cache/informer.js';
import type { ListerWatcher } from '../../../src/runtime/cache/informer.js';
import { waitFor } from './helpers.js';

type Obj = KubernetesObject & { metadata: { name: string; namespace: string; resourceVersion: string } };

const added = (name: string, rv: number): WatchEvent<Obj> => ({
  type: 'ADDED',
  object: { metadata: { name, namespace: 'ns', resourceVersion: String(rv) } },
});
const bookmark = (rv: number, end = true): WatchEvent<Obj> => ({
  type: 'BOOKMARK',
  object: {
    metadata: { resourceVersion: String(rv), ...(end ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) },
  },
});
const status = (code: number, reason: string) =>
  new ApiError({ kind: 'Status', code, reason, message: reason }, 'WATCH', '/fake');

/** Each watch plays the next script: its events, then an error, an end, or (by default) waits until stopped. */
type Script = { events: WatchEvent<Obj>[]; then?: 'end' | Error };

class ScriptedApi implements ListerWatcher<Obj> {
  readonly calls: string[] = [];
  constructor(
    private readonly scripts: Script[],
    private readonly listed: Obj[] = [],
  ) {}

  async list(options: ListOptions): Promise<ObjectList<Obj>> {
    this.calls.push(`list limit=${options.limit}`);
    return { metadata: { resourceVersion: '50' }, items: this.listed.map((o) => structuredClone(o)) };
  }

  async *watch(options: WatchOptions): AsyncGenerator<WatchEvent<Obj>> {
    this.calls.push(options.sendInitialEvents ? 'stream' : `watch ${options.resourceVersion}`);
    const script = this.scripts.shift() ?? { events: [] };
    for (const event of script.events) yield event;
    if (script.then === 'end') return;
    if (script.then) throw script.then;
    await new Promise<void>((resolve) => options.signal?.addEventListener('abort', () => resolve(), { once: true }));
  }
}

function recorded(informer: Informer<Obj>): string[] {
  const events: string[] = [];
  informer.addEventHandler({
    onAdd: (o, initial) => events.push(`add ${o.metadata.name}${initial ? ' (initial)' : ''}`),
    onDelete: (o, info) => events.push(`delete ${o.metadata.name}${info.finalStateUnknown ? ' (unknown)' : ''}`),
  });
  return events;
}

describe('Informer streaming list (scripted API)', () => {
  it('streams again when a stream ends before its end bookmark, handing out nothing of the broken one', async () => {
    const api = new ScriptedApi([
      { events: [added('a', 10), bookmark(11, false)], then: 'end' },
      { events: [added('a', 10), added('b', 12), bookmark(13)] },
    ]);
    const informer = new Informer<Obj>(api, { streamingList: true, initialBackoffMs: 5, maxBackoffMs: 10 });
    const events = recorded(informer);
    informer.start();
    await informer.waitForSync();
    expect(api.calls).toEqual(['stream', 'stream']);
    expect(events).toEqual(['add a (initial)', 'add b (initial)']);
    expect(informer.lastSyncResourceVersion).toBe('13');
    expect(informer.stats).toMatchObject({ objects: 2, relists: 0, lastListMethod: 'streaming' });
    await informer.stop();
  });

  it('streams again after 429 or an unreachable server, and pages when the stream is refused', async () => {
    const api = new ScriptedApi(
      [
        { events: [], then: status(429, 'TooManyRequests') },
        { events: [], then: status(422, 'Invalid') },
        // The watch after the paged list expires; the relist tries the stream again.
        { events: [], then: status(410, 'Expired') },
        { events: [added('b', 60), bookmark(61)] },
      ],
      [{ metadata: { name: 'a', namespace: 'ns', resourceVersion: '40' } }],
    );
    const informer = new Informer<Obj>(api, { streamingList: true, initialBackoffMs: 5, maxBackoffMs: 10 });
    const events = recorded(informer);
    informer.start();
    await informer.waitForSync();
    expect(informer.stats.lastListMethod).toBe('paginated');
    await waitFor(() => informer.stats.relists === 1, 2000, 'the relist');
    expect(api.calls).toEqual(['stream', 'stream', 'list limit=500', 'watch 50', 'stream']);
    expect(events).toEqual(['add a (initial)', 'add b', 'delete a (unknown)']);
    expect(informer.stats).toMatchObject({ objects: 1, relists: 1, lastListMethod: 'streaming' });
    await informer.stop();
  });
});
