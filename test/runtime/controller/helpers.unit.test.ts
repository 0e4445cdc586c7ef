import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../src/api/index.js';
import type { KubernetesObject } from '../../../src/runtime/index.js';
import type { LogFields } from '../../../src/runtime/manager/index.js';
import {
  AlreadyOwnedError,
  and,
  annotationsChanged,
  findCondition,
  generationChanged,
  labelsChanged,
  matching,
  not,
  or,
  removeCondition,
} from '../../../src/runtime/controller/index.js';
import { createLogger, setCondition, setControllerReference } from '../../../src/runtime/index.js';
import { Indexer } from '../../../src/runtime/cache/indexer.js';
import { Lister } from '../../../src/runtime/cache/lister.js';
import { getControllerOf, getReference } from '../../../src/runtime/controller/owner-references.js';
import { mapToControllerOwner, requestHandler } from '../../../src/runtime/controller/event-handlers.js';
import { parseBindAddress } from '../../../src/runtime/manager/http-server.js';
import { parseKey } from '../../../src/runtime/controller/request.js';

function obj(name: string, meta: Record<string, unknown> = {}): KubernetesObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...meta } };
}

describe('predicates', () => {
  const cases: Array<{
    name: string;
    predicate: ReturnType<typeof generationChanged>;
    given: [KubernetesObject, KubernetesObject];
    want: boolean;
  }> = [
    {
      name: 'generation same',
      predicate: generationChanged(),
      given: [obj('a', { generation: 1 }), obj('a', { generation: 1 })],
      want: false,
    },
    {
      name: 'generation bumped',
      predicate: generationChanged(),
      given: [obj('a', { generation: 1 }), obj('a', { generation: 2 })],
      want: true,
    },
    {
      name: 'labels same (order differs)',
      predicate: labelsChanged(),
      given: [obj('a', { labels: { x: '1', y: '2' } }), obj('a', { labels: { y: '2', x: '1' } })],
      want: false,
    },
    {
      name: 'label value changed',
      predicate: labelsChanged(),
      given: [obj('a', { labels: { x: '1' } }), obj('a', { labels: { x: '2' } })],
      want: true,
    },
    {
      name: 'label added',
      predicate: labelsChanged(),
      given: [obj('a'), obj('a', { labels: { x: '1' } })],
      want: true,
    },
    {
      name: 'annotation removed',
      predicate: annotationsChanged(),
      given: [obj('a', { annotations: { x: '1' } }), obj('a', { annotations: {} })],
      want: true,
    },
    {
      name: 'annotations same',
      predicate: annotationsChanged(),
      given: [obj('a', { annotations: { x: '1' } }), obj('a', { annotations: { x: '1' } })],
      want: false,
    },
    {
      name: 'or',
      predicate: or(generationChanged(), labelsChanged()),
      given: [obj('a', { generation: 1 }), obj('a', { generation: 1, labels: { l: 'v' } })],
      want: true,
    },
    {
      name: 'and',
      predicate: and(generationChanged(), labelsChanged()),
      given: [obj('a', { generation: 1 }), obj('a', { generation: 2 })],
      want: false,
    },
    {
      name: 'not',
      predicate: not(generationChanged()),
      given: [obj('a', { generation: 1 }), obj('a', { generation: 2 })],
      want: false,
    },
    { name: 'custom', predicate: matching((o) => o.metadata?.name === 'a'), given: [obj('b'), obj('a')], want: true },
  ];
  for (const c of cases) {
    it(c.name, () => expect(c.predicate.update?.(...c.given)).toBe(c.want));
  }
  it('lets creates and deletes through when only update is filtered', () => {
    expect(generationChanged().create).toBeUndefined();
    expect(not(generationChanged()).create?.(obj('a'))).toBe(false);
  });
});

describe('conditions', () => {
  it('sets lastTransitionTime only when the status changes', () => {
    const conditions: Condition[] = [];
    const t1 = new Date('2026-01-01T00:00:00.123Z');
    expect(
      setCondition(
        conditions,
        { type: 'Ready', status: 'False', reason: 'Pending', message: 'wait', observedGeneration: 1 },
        t1,
      ),
    ).toBe(true);
    expect(conditions[0]).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'Pending',
      message: 'wait',
      observedGeneration: 1,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    const t2 = new Date('2026-01-01T00:05:00Z');
    expect(
      setCondition(
        conditions,
        { type: 'Ready', status: 'False', reason: 'StillPending', message: 'wait', observedGeneration: 2 },
        t2,
      ),
    ).toBe(true);
    expect(conditions[0]).toMatchObject({
      reason: 'StillPending',
      observedGeneration: 2,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    expect(
      setCondition(
        conditions,
        { type: 'Ready', status: 'False', reason: 'StillPending', message: 'wait', observedGeneration: 2 },
        t2,
      ),
    ).toBe(false);
    const t3 = new Date('2026-01-01T00:10:00Z');
    expect(
      setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Ok', message: '', observedGeneration: 2 }, t3),
    ).toBe(true);
    expect(conditions[0]?.lastTransitionTime).toBe('2026-01-01T00:10:00Z');
    expect(findCondition(conditions, 'Ready')?.status).toBe('True');
    expect(removeCondition(conditions, 'Ready')).toBe(true);
    expect(conditions).toEqual([]);
  });
});

describe('owner references', () => {
  const owner = {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'RedisCluster',
    metadata: { name: 'r', namespace: 'ns', uid: 'u1' },
  };
  it('adds a controller reference once and routes events to the owner', () => {
    const owned = obj('cm');
    setControllerReference(owner, owned);
    setControllerReference(owner, owned);
    expect((owned.metadata as { ownerReferences: unknown[] }).ownerReferences).toEqual([
      {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'RedisCluster',
        name: 'r',
        uid: 'u1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(getControllerOf(owned)?.name).toBe('r');
    expect(mapToControllerOwner({ group: 'cache.example.com', kind: 'RedisCluster' })(owned)).toEqual([
      { namespace: 'ns', name: 'r' },
    ]);
    expect(mapToControllerOwner({ group: 'other.example.com', kind: 'RedisCluster' })(owned)).toEqual([]);
  });
  it('refuses a second controller and cross-namespace owners', () => {
    const owned = obj('cm');
    setControllerReference(owner, owned);
    expect(() =>
      setControllerReference({ ...owner, metadata: { ...owner.metadata, name: 'other', uid: 'u2' } }, owned),
    ).toThrow(AlreadyOwnedError);
    expect(() => setControllerReference(owner, { metadata: { name: 'x', namespace: 'elsewhere' } })).toThrow(
      /same namespace/,
    );
    expect(() => setControllerReference({ metadata: { name: 'no-uid' } }, obj('y'))).toThrow(/uid/);
  });
});

describe('getReference', () => {
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'nightly-1', namespace: 'ns', uid: 'u9', resourceVersion: '42', labels: { a: 'b' } },
  };
  it('refers to an object by apiVersion, kind, namespace, name, uid and resourceVersion', () => {
    expect(getReference(job)).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      namespace: 'ns',
      name: 'nightly-1',
      uid: 'u9',
      resourceVersion: '42',
    });
  });
  it('takes apiVersion and kind from the descriptor for an object read without them', () => {
    const bare = { metadata: { name: 'n', uid: 'u' } };
    const nodeType = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
    expect(getReference(bare, nodeType)).toEqual({ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u' });
    const jobType = { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true };
    expect(getReference({ metadata: { name: 'j', namespace: 'ns' } }, jobType).apiVersion).toBe('batch/v1');
  });
  it('refuses an object it could not refer back to', () => {
    expect(() => getReference({ metadata: { name: 'n' } })).toThrow(/no apiVersion or kind: pass its ResourceType/);
    expect(() => getReference({ apiVersion: 'v1', kind: 'Pod', metadata: {} })).toThrow(/no metadata.name/);
  });
});

describe('indexer and lister', () => {
  it('keeps namespace and custom indexes in step with changes', () => {
    const indexer = new Indexer<KubernetesObject>({
      byApp: (o) => (o.metadata?.labels?.app ? [o.metadata.labels.app] : []),
    });
    indexer.upsert({ metadata: { name: 'a', namespace: 'n1', labels: { app: 'web' } } });
    indexer.upsert({ metadata: { name: 'b', namespace: 'n2', labels: { app: 'web' } } });
    indexer.upsert({ metadata: { name: 'c' } });
    const lister = new Lister(indexer);
    expect(lister.list({ namespace: 'n1' }).map((o) => o.metadata?.name)).toEqual(['a']);
    expect(lister.byIndex('byApp', 'web').map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    indexer.upsert({ metadata: { name: 'b', namespace: 'n2', labels: { app: 'db' } } });
    expect(lister.byIndex('byApp', 'web').map((o) => o.metadata?.name)).toEqual(['a']);
    expect(lister.list({ labels: { app: 'db' } }).map((o) => o.metadata?.name)).toEqual(['b']);
    expect(lister.get('c')?.metadata?.name).toBe('c');
    expect(lister.get('n1', 'a')).toBeDefined();
    indexer.remove('n1/a');
    expect(lister.byIndex('byApp', 'web')).toEqual([]);
    expect(() => lister.byIndex('missing', 'x')).toThrow(/no index/);
    expect(parseKey('n1/a')).toEqual({ namespace: 'n1', name: 'a' });
    expect(parseKey('c')).toEqual({ namespace: '', name: 'c' });
  });
});

describe('request handler', () => {
  it('enqueues old and new owners on update and filters through predicates', () => {
    const seen: string[] = [];
    const handler = requestHandler(
      (o: KubernetesObject) => [{ namespace: 'ns', name: String(o.metadata?.labels?.owner) }],
      [generationChanged()],
      (r) => seen.push(r.name),
    );
    handler.onAdd?.(obj('x', { labels: { owner: 'first' } }), false);
    handler.onUpdate?.(
      obj('x', { generation: 1, labels: { owner: 'first' } }),
      obj('x', { generation: 1, labels: { owner: 'second' } }),
    );
    handler.onUpdate?.(
      obj('x', { generation: 1, labels: { owner: 'first' } }),
      obj('x', { generation: 2, labels: { owner: 'second' } }),
    );
    handler.onDelete?.(obj('x', { labels: { owner: 'second' } }), { finalStateUnknown: true });
    expect(seen).toEqual(['first', 'second', 'first', 'second']);
  });
});

describe('logger and bind addresses', () => {
  function capture(format: 'json' | 'text') {
    const lines: string[] = [];
    const logger = createLogger({ format, stream: { write: (s: string) => lines.push(s) }, env: {} });
    return { logger, lines };
  }
  it('writes JSON lines with inherited fields', () => {
    const { logger, lines } = capture('json');
    logger
      .child({ controller: 'widget' })
      .child({ key: 'ns/a' })
      .info('reconciled', { err: new Error('boom') } as LogFields);
    logger.debug('hidden');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'info',
      msg: 'reconciled',
      controller: 'widget',
      key: 'ns/a',
      err: 'boom',
    });
  });
  it('writes readable text on a terminal and picks JSON when not a TTY', () => {
    const { logger, lines } = capture('text');
    logger.warn('slow', { key: 'ns/a', ms: 12 });
    expect(lines[0]).toMatch(/^\S+ WARN  slow key=ns\/a ms=12\n$/);
    const piped: string[] = [];
    createLogger({ stream: { write: (s: string) => piped.push(s), isTTY: false }, env: {} }).info('x');
    expect(() => JSON.parse(piped[0]!)).not.toThrow();
  });
  it('parses bind addresses like the controller-runtime flags', () => {
    expect(parseBindAddress(':8080')).toEqual({ host: undefined, port: 8080 });
    expect(parseBindAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseBindAddress('[::1]:9')).toEqual({ host: '::1', port: 9 });
    expect(parseBindAddress('0')).toBeUndefined();
    expect(() => parseBindAddress('8080')).toThrow(/host:port/);
  });
});
