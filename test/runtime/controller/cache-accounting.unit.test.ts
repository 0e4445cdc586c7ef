import { describe, expect, it } from 'vitest';
import type { KubernetesObject } from '../../../src/runtime/index.js';
import { Indexer } from '../../../src/runtime/cache/indexer.js';
import { estimateJsonBytes } from '../../../src/runtime/cache/object-size.js';

type Obj = KubernetesObject & { metadata: { name: string; namespace?: string }; data?: Record<string, string> };

const object = (name: string, data: Record<string, string> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data,
});

describe('estimateJsonBytes', () => {
  it.each([
    { given: 'a string', value: 'abc' },
    { given: 'an empty object', value: {} },
    { given: 'an array of scalars', value: [12345678, true, null, 'x'] },
    { given: 'a ConfigMap', value: object('cm', { key: 'value', other: 'x'.repeat(1000) }) },
    { given: 'nested objects and arrays', value: { a: [{ b: { c: ['d', 'e'] } }], f: { g: {} } } },
  ])('is the JSON length for $given, without escapes or long numbers', ({ value }) => {
    expect(estimateJsonBytes(value)).toBe(JSON.stringify(value).length);
  });

  it('skips undefined fields as JSON does, and counts a number as 8', () => {
    expect(estimateJsonBytes({ a: undefined, b: 'x' })).toBe(JSON.stringify({ b: 'x' }).length);
    expect(estimateJsonBytes(12345678)).toBe(8);
  });
});

describe('the indexer keeps its estimated bytes as objects come and go', () => {
  it('adds on insert, replaces on update, subtracts on remove, back to 0 when empty', () => {
    const indexer = new Indexer<Obj>();
    const a = object('a', { v: 'x'.repeat(100) });
    const b = object('b');
    indexer.upsert(a);
    indexer.upsert(b);
    expect(indexer.bytes).toBe(JSON.stringify(a).length + JSON.stringify(b).length);

    const bigger = object('a', { v: 'y'.repeat(5000) });
    indexer.upsert(bigger);
    expect(indexer.bytes).toBe(JSON.stringify(bigger).length + JSON.stringify(b).length);

    indexer.remove('ns/a');
    expect(indexer.bytes).toBe(JSON.stringify(b).length);
    indexer.remove('ns/missing');
    expect(indexer.bytes).toBe(JSON.stringify(b).length);
    indexer.remove('ns/b');
    expect(indexer.bytes).toBe(0);
    expect(indexer.size).toBe(0);
  });
});
