import { describe, expect, it } from 'vitest';
import { ApiError, type KubernetesObject, type ObjectList } from '../../../src/runtime/index.js';
import { isGone } from '../../../src/runtime/client/index.js';
import { listComplete } from '../../../src/runtime/client/resource/list-pager.js';
import { type ListOptions } from '../../../src/runtime/client/resource/options.js';

type Item = KubernetesObject & { metadata: { name: string; resourceVersion: string }; value: number };

function apiError(code: number, reason: string): ApiError {
  return new ApiError({ kind: 'Status', code, reason, message: `${reason} from the fake` }, 'GET', '/fake');
}

/**
 * An in-memory paged list API with etcd's rules: a paged list reads at one revision (carried in
 * the continue token), a compaction makes older revisions unreadable (410 Expired), and a list
 * without `limit` reads the current state.
 */
class FakePagedApi {
  revision = 1;
  compactedThrough = 0;
  private readonly history: Array<Map<string, Item>> = [];
  /** The objects now, by name. */
  current = new Map<string, Item>();
  readonly calls: ListOptions[] = [];
  /** Runs after the call with this index (0-based) has produced its page. */
  afterCall = new Map<number, () => void>();
  /** Makes the call with this index fail instead. */
  failCall = new Map<number, ApiError>();

  constructor(count: number) {
    for (let i = 0; i < count; i++) this.put(`item-${String(i).padStart(2, '0')}`, 0);
  }

  put(name: string, value: number): void {
    this.history[this.revision] = new Map(this.current);
    this.revision++;
    this.current = new Map(this.current).set(name, {
      metadata: { name, resourceVersion: String(this.revision) },
      value,
    });
  }

  /** Like etcd, keeps the current revision readable: only revisions before it expire. */
  compact(): void {
    this.compactedThrough = this.revision;
  }

  writeAndCompact(): void {
    this.put('item-00', 5);
    this.compact();
  }

  private stateAt(revision: number): Map<string, Item> {
    if (revision < this.compactedThrough) throw apiError(410, 'Expired');
    return revision === this.revision ? this.current : this.history[revision]!;
  }

  readonly list = async (options: ListOptions): Promise<ObjectList<Item>> => {
    const call = this.calls.push({ ...options }) - 1;
    const failure = this.failCall.get(call);
    if (failure) throw failure;
    if (options.continue && options.resourceVersion) throw apiError(400, 'BadRequest');
    let revision = this.revision;
    let start = '';
    if (options.continue) ({ revision, start } = JSON.parse(options.continue) as { revision: number; start: string });
    else if (options.resourceVersion && options.resourceVersion !== '0') revision = Number(options.resourceVersion);
    const all = [...this.stateAt(revision).values()]
      .filter((item) => item.metadata.name > start)
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const items = options.limit ? all.slice(0, options.limit) : all;
    const more = items.length < all.length;
    const page: ObjectList<Item> = {
      kind: 'ItemList',
      metadata: {
        resourceVersion: String(revision),
        continue: more ? JSON.stringify({ revision, start: items[items.length - 1]!.metadata.name }) : undefined,
      },
      items,
    };
    this.afterCall.get(call)?.();
    return page;
  };

  /** The list options the pager sent, in a compact form for comparisons. */
  sent(): string[] {
    return this.calls.map((o) =>
      [
        o.limit ? `limit=${o.limit}` : 'no limit',
        o.continue ? 'continue' : '',
        o.resourceVersion ? `rv=${o.resourceVersion}` : '',
      ]
        .filter(Boolean)
        .join(' '),
    );
  }
}

function names(list: ObjectList<Item>): string[] {
  return list.items.map((item) => `${item.metadata.name}=${item.value}`);
}

function expected(api: FakePagedApi): string[] {
  return names({
    metadata: {},
    items: [...api.current.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)),
  });
}

describe('listComplete: paging and the fallback to one full list', () => {
  it('returns a single page as the server sent it', async () => {
    const api = new FakePagedApi(3);
    const list = await listComplete(api.list, { limit: 10 });
    expect(api.sent()).toEqual(['limit=10']);
    expect(names(list)).toEqual(['item-00=0', 'item-01=0', 'item-02=0']);
    expect(list.metadata.resourceVersion).toBe(String(api.revision));
  });

  it('joins the pages at the first page revision; continued pages carry no resourceVersion', async () => {
    const api = new FakePagedApi(7);
    const firstRevision = api.revision;
    // A write between pages must not show up: every page reads the first page's revision.
    api.afterCall.set(0, () => api.put('item-05', 1));
    const list = await listComplete(api.list, {
      limit: 3,
      resourceVersion: String(firstRevision),
      resourceVersionMatch: 'Exact',
    });
    expect(api.sent()).toEqual([`limit=3 rv=${firstRevision}`, 'limit=3 continue', 'limit=3 continue']);
    expect(list.items).toHaveLength(7);
    expect(names(list)).toContain('item-05=0');
    expect(list.metadata).toEqual({ resourceVersion: String(firstRevision) });
    expect(list.kind).toBe('ItemList');
  });

  it('uses pages of 500 when no limit is given', async () => {
    const api = new FakePagedApi(2);
    await listComplete(api.list);
    expect(api.sent()).toEqual(['limit=500']);
  });

  const expiredCases = [
    { name: 'on the second page', expireAfterCall: 0, wantSent: ['limit=4', 'limit=4 continue', 'no limit'] },
    {
      name: 'on the third page',
      expireAfterCall: 1,
      wantSent: ['limit=4', 'limit=4 continue', 'limit=4 continue', 'no limit'],
    },
  ];
  for (const { name, expireAfterCall, wantSent } of expiredCases) {
    it(`a continue token that expires ${name} ends in one list without limit, the current state`, async () => {
      const api = new FakePagedApi(10);
      api.afterCall.set(expireAfterCall, () => {
        api.put('item-01', 7);
        api.put('item-09', 9);
        api.put('item-10', 1);
        api.compact();
      });
      const expiries: ApiError[] = [];
      const list = await listComplete(api.list, { limit: 4, onContinueExpired: (err) => expiries.push(err) });
      expect(api.sent()).toEqual(wantSent);
      expect(names(list)).toEqual(expected(api));
      expect(names(list)).toContain('item-10=1');
      expect(list.metadata.resourceVersion).toBe(String(api.revision));
      expect(expiries).toHaveLength(1);
      expect(expiries[0]!.reason).toBe('Expired');
    });
  }

  it('the full list after an expired continue token keeps the selectors and the requested resourceVersion', async () => {
    const api = new FakePagedApi(6);
    api.afterCall.set(0, () => api.writeAndCompact());
    await listComplete(api.list, {
      limit: 2,
      labelSelector: 'app=web',
      fieldSelector: { 'metadata.name': 'x' },
      resourceVersion: '0',
      timeoutSeconds: 9,
    });
    expect(api.calls.map((c) => [c.labelSelector, c.fieldSelector, c.timeoutSeconds])).toEqual(
      Array(3).fill(['app=web', { 'metadata.name': 'x' }, 9]),
    );
    expect(api.calls.map((c) => c.resourceVersion)).toEqual(['0', undefined, '0']);
  });

  const thrownCases = [
    {
      name: 'a 410 on the first page (its resourceVersion is too old) is thrown, not retried',
      setup: (api: FakePagedApi) => api.failCall.set(0, apiError(410, 'Expired')),
      wantSent: ['limit=3 rv=0'],
      want: (err: unknown) => isGone(err),
    },
    {
      name: 'a non-410 error on a continued page is thrown without a full list',
      setup: (api: FakePagedApi) => api.failCall.set(1, apiError(500, 'InternalError')),
      wantSent: ['limit=3 rv=0', 'limit=3 continue'],
      want: (err: unknown) => err instanceof ApiError && err.code === 500,
    },
    {
      name: 'a failure of the full list itself is thrown',
      setup: (api: FakePagedApi) => {
        api.afterCall.set(0, () => api.writeAndCompact());
        api.failCall.set(2, apiError(503, 'ServiceUnavailable'));
      },
      wantSent: ['limit=3 rv=0', 'limit=3 continue', 'no limit rv=0'],
      want: (err: unknown) => err instanceof ApiError && err.code === 503,
    },
  ];
  for (const { name, setup, wantSent, want } of thrownCases) {
    it(name, async () => {
      const api = new FakePagedApi(8);
      setup(api);
      const expiries: ApiError[] = [];
      const err = await listComplete(api.list, {
        limit: 3,
        resourceVersion: '0',
        onContinueExpired: (e) => expiries.push(e),
      }).catch((e: unknown) => e);
      expect(want(err)).toBe(true);
      expect(api.sent()).toEqual(wantSent);
      expect(expiries).toHaveLength(wantSent.includes('no limit rv=0') ? 1 : 0);
    });
  }

  it('stops between pages when the signal aborts', async () => {
    const api = new FakePagedApi(8);
    const controller = new AbortController();
    api.afterCall.set(0, () => controller.abort(new Error('stopping')));
    await expect(listComplete(api.list, { limit: 3, signal: controller.signal })).rejects.toThrow('stopping');
    expect(api.sent()).toEqual(['limit=3']);
  });
});
