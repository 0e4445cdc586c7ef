// The cache's copies (util/deep-copy): equal to structuredClone's for what the cache holds, and
// sharing nothing mutable with the original.
import { describe, expect, it } from 'vitest';
import { deepCopy } from '../../../src/runtime/util/deep-copy.js';

describe('deepCopy', () => {
  const cases: { name: string; given: unknown }[] = [
    { name: 'primitives', given: [1, 'a', true, null, 0, -1.5, ''] },
    {
      name: 'a custom resource as the apiserver sends it',
      given: {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'RedisCluster',
        metadata: {
          name: 'a',
          namespace: 'ns',
          generation: 2,
          finalizers: ['x/y'],
          labels: { app: 'web' },
          ownerReferences: [{ uid: 'u', controller: true }],
        },
        spec: { replicas: 3, nested: [[1, 2], [{ deep: { deeper: [null] } }]] },
        status: { conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2 }] },
      },
    },
    {
      name: 'an object without a prototype and undefined members',
      given: Object.assign(Object.create(null) as object, { a: 1, b: undefined, c: { d: [] } }),
    },
    {
      name: 'a Date and a Map (structuredClone copies them)',
      given: { at: new Date(0), map: new Map([['k', { v: 1 }]]) },
    },
  ];
  for (const { name, given } of cases) {
    it(`copies ${name} as structuredClone does`, () => {
      const got = deepCopy(given);
      expect(got).toStrictEqual(structuredClone(given));
      if (typeof given === 'object' && given !== null) expect(got).not.toBe(given);
    });
  }

  it('keeps a `__proto__` key from JSON as an own property, not as the prototype', () => {
    const given = JSON.parse('{"data":{"__proto__":{"polluted":true},"plain":"x"},"text":{"__proto__":"y"}}') as {
      data: Record<string, unknown>;
      text: Record<string, unknown>;
    };
    const got = deepCopy(given);
    expect(Object.keys(got.data)).toEqual(['__proto__', 'plain']);
    expect(Object.getPrototypeOf(got.data)).toBe(Object.prototype);
    expect((got.data as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(got.data, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getOwnPropertyDescriptor(got.text, '__proto__')?.value).toBe('y');
    expect(JSON.stringify(got)).toBe(JSON.stringify(given));
  });

  it('shares no object or array with the original', () => {
    const given = { metadata: { labels: { a: '1' }, finalizers: ['f'] }, spec: { list: [{ x: 1 }] } };
    const got = deepCopy(given);
    got.metadata.labels.a = '2';
    got.metadata.finalizers.push('g');
    got.spec.list[0]!.x = 2;
    expect(given).toEqual({ metadata: { labels: { a: '1' }, finalizers: ['f'] }, spec: { list: [{ x: 1 }] } });
  });
});
