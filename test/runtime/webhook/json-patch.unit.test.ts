import { describe, expect, it } from 'vitest';
import { createJsonPatch, escapePointerToken, jsonEqual } from '../../../src/runtime/webhook/json-patch.js';
import { applyJsonPatch } from './apply-json-patch.js';

describe('createJsonPatch', () => {
  const cases: { name: string; given: { from: unknown; to: unknown }; want: unknown[] }[] = [
    {
      name: 'equal documents need no operation',
      given: { from: { a: 1, b: [1, { c: null }] }, to: { b: [1, { c: null }], a: 1 } },
      want: [],
    },
    {
      name: 'an added key',
      given: { from: { spec: {} }, to: { spec: { replicas: 3 } } },
      want: [{ op: 'add', path: '/spec/replicas', value: 3 }],
    },
    {
      name: 'a removed key',
      given: { from: { spec: { a: 1, b: 2 } }, to: { spec: { b: 2 } } },
      want: [{ op: 'remove', path: '/spec/a' }],
    },
    {
      name: 'a changed scalar',
      given: { from: { spec: { a: 'x' } }, to: { spec: { a: 'y' } } },
      want: [{ op: 'replace', path: '/spec/a', value: 'y' }],
    },
    {
      name: 'keys with / and ~ are escaped as ~1 and ~0',
      given: {
        from: { metadata: { labels: {} } },
        to: { metadata: { labels: { 'app.kubernetes.io/name': 'r', 'a~b': 'c', '~1': 'd' } } },
      },
      want: [
        { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'r' },
        { op: 'add', path: '/metadata/labels/a~0b', value: 'c' },
        { op: 'add', path: '/metadata/labels/~01', value: 'd' },
      ],
    },
    {
      name: 'null to a value is a replace',
      given: { from: { a: null }, to: { a: { b: 1 } } },
      want: [{ op: 'replace', path: '/a', value: { b: 1 } }],
    },
    {
      name: 'a value to null is a replace',
      given: { from: { a: [1] }, to: { a: null } },
      want: [{ op: 'replace', path: '/a', value: null }],
    },
    { name: 'an added null key', given: { from: {}, to: { a: null } }, want: [{ op: 'add', path: '/a', value: null }] },
    {
      name: 'an object becoming an array is replaced whole',
      given: { from: { a: { 0: 1 } }, to: { a: [1] } },
      want: [{ op: 'replace', path: '/a', value: [1] }],
    },
    {
      name: 'elements appended to an array',
      given: { from: { a: [1] }, to: { a: [1, 2, 3] } },
      want: [
        { op: 'add', path: '/a/1', value: 2 },
        { op: 'add', path: '/a/2', value: 3 },
      ],
    },
    {
      name: 'elements removed from the end, highest index first',
      given: { from: { a: [1, 2, 3] }, to: { a: [1] } },
      want: [
        { op: 'remove', path: '/a/2' },
        { op: 'remove', path: '/a/1' },
      ],
    },
    {
      name: 'a changed field inside an array element',
      given: {
        from: { containers: [{ name: 'a', image: 'x' }] },
        to: { containers: [{ name: 'a', image: 'y', imagePullPolicy: 'Always' }] },
      },
      want: [
        { op: 'replace', path: '/containers/0/image', value: 'y' },
        { op: 'add', path: '/containers/0/imagePullPolicy', value: 'Always' },
      ],
    },
    { name: 'an empty key', given: { from: { '': 1 }, to: { '': 2 } }, want: [{ op: 'replace', path: '/', value: 2 }] },
    {
      name: 'a number that differs only in type',
      given: { from: { a: 1 }, to: { a: '1' } },
      want: [{ op: 'replace', path: '/a', value: '1' }],
    },
  ];
  it.each(cases)('$name', ({ given, want }) => {
    const patch = createJsonPatch(given.from, given.to);
    expect(patch).toEqual(want);
    // The patch does what it says: applied to `from` it gives `to`.
    expect(applyJsonPatch(given.from, patch)).toEqual(given.to);
  });

  it('turns random documents into each other (applied, the patch always gives the target)', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const keys = ['a', 'b/c', 'd~e', '~1', 'f', ''];
    const value = (depth: number): unknown => {
      const r = random();
      if (depth > 3 || r < 0.3) return [null, 0, 1, 'x', true, false][Math.floor(random() * 6)];
      if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(keys.filter(() => random() < 0.5).map((k) => [k, value(depth + 1)]));
    };
    for (let i = 0; i < 500; i++) {
      const from = { root: value(0) };
      const to = { root: value(0) };
      expect(applyJsonPatch(from, createJsonPatch(from, to))).toEqual(to);
    }
  });
});

describe('escapePointerToken', () => {
  it.each([
    ['plain', 'plain'],
    ['a/b', 'a~1b'],
    ['a~b', 'a~0b'],
    ['~/', '~0~1'],
    ['~1', '~01'],
  ])('%s -> %s', (given, want) => {
    expect(escapePointerToken(given)).toBe(want);
  });
});

describe('jsonEqual', () => {
  it.each([
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, true],
    [[1, 2], [2, 1], false],
    [{ a: undefined }, {}, false],
    [null, {}, false],
    [{ a: [null] }, { a: [null] }, true],
  ])('%j vs %j -> %s', (a, b, want) => {
    expect(jsonEqual(a, b)).toBe(want);
  });
});
