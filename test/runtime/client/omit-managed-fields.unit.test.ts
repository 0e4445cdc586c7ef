import { describe, expect, it } from 'vitest';
import { decodeWithoutManagedFields, omitManagedFields } from '../../../src/runtime/client/rest/omit-managed-fields.js';

const managedFields = [
  {
    manager: 'kubelet',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-11-27T20:00:00Z',
    fieldsType: 'FieldsV1',
    // Keys of list items hold JSON themselves: quotes, braces and brackets inside strings.
    fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } } }, 'f:x]': {} },
  },
  {
    manager: 'kop',
    operation: 'Apply',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { '}{': {} } },
  },
];

function event(metadata: Record<string, unknown>, rest: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata, ...rest } });
}

describe('omitManagedFields', () => {
  const cases: Array<{ name: string; given: string; want: string }> = [
    {
      name: 'last member of metadata, as the apiserver writes built-in kinds',
      given: event({ name: 'a', namespace: 'n', labels: { x: 'y' }, managedFields }, { data: { k: 'v' } }),
      want: event({ name: 'a', namespace: 'n', labels: { x: 'y' } }, { data: { k: 'v' } }),
    },
    {
      name: 'between other members, as custom resources have it (sorted keys)',
      given: event({ generation: 1, managedFields, name: 'a' }, { spec: { n: 1 } }),
      want: event({ generation: 1, name: 'a' }, { spec: { n: 1 } }),
    },
    {
      name: 'the only member of metadata',
      given: event({ managedFields }),
      want: event({}),
    },
    {
      name: 'the first member of metadata',
      given: event({ managedFields, name: 'a' }),
      want: event({ name: 'a' }),
    },
    {
      name: 'annotations holding the key as text (escaped) stay',
      given: event({ annotations: { note: '{"managedFields":[1]}', 'x}': ']' }, name: 'a', managedFields }),
      want: event({ annotations: { note: '{"managedFields":[1]}', 'x}': ']' }, name: 'a' }),
    },
  ];
  for (const { name, given, want } of cases) {
    it(`cuts metadata.managedFields: ${name}`, () => {
      const cut = omitManagedFields(given);
      expect(cut).toBe(want);
      expect(JSON.parse(cut)).toEqual(JSON.parse(want));
    });
  }

  const untouched: Array<{ name: string; given: string }> = [
    { name: 'no managedFields', given: event({ name: 'a' }, { data: { k: 'v' } }) },
    {
      name: 'a managedFields key elsewhere (spec) while metadata has none',
      given: event({ name: 'a' }, { spec: { managedFields: [{ a: 1 }] } }),
    },
    {
      name: 'a managedFields key in a nested object of metadata',
      given: event({ name: 'a', ownerReferences: [{ managedFields: [1] }] }),
    },
    { name: 'a bare object, not a watch event', given: JSON.stringify({ metadata: { managedFields } }) },
    {
      name: 'managedFields that is not a list',
      given: event({ name: 'a', managedFields: { a: 1 } }),
    },
    { name: 'object not an object (an ERROR event)', given: '{"type":"ERROR","object":"managedFields"}' },
    { name: 'text that is cut short', given: event({ name: 'a', managedFields }).slice(0, 90) },
    { name: 'a string that never ends', given: '{"type":"ADDED","object":{"metadata":{"managedFields":["abc' },
    { name: 'not JSON', given: 'managedFields":[' },
  ];
  for (const { name, given } of untouched) {
    it(`leaves the text as it is: ${name}`, () => {
      expect(omitManagedFields(given)).toBe(given);
    });
  }

  it('handles escaped backslashes before a closing quote', () => {
    const given = event({ name: 'a\\', managedFields: [{ fieldsV1: { 'f:\\\\': {} } }] });
    expect(JSON.parse(omitManagedFields(given))).toEqual(JSON.parse(event({ name: 'a\\' })));
  });

  it('cuts in an event with spaces between tokens and text in other encodings', () => {
    const given = JSON.stringify(
      JSON.parse(event({ name: 'ä-名', managedFields }, { data: { ü: '"managedFields":[]' } })),
      null,
      1,
    ).replace(/\n/g, ' ');
    expect(JSON.parse(omitManagedFields(given))).toEqual(
      JSON.parse(event({ name: 'ä-名' }, { data: { ü: '"managedFields":[]' } })),
    );
  });
});

describe('decodeWithoutManagedFields', () => {
  const item = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    metadata: { name, namespace: 'n', managedFields, ...extra },
    data: { k: '{"metadata":{"managedFields":[]}}' },
  });
  const strip = (o: Record<string, unknown>): unknown => {
    const { managedFields: _m, ...metadata } = o.metadata as Record<string, unknown>;
    return { ...o, metadata };
  };

  it('cuts the managedFields of every item of a list, and nothing else', () => {
    const items = [item('a'), item('b', { labels: { x: 'y' } }), { metadata: { name: 'c' } }, item('d')];
    const list = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items };
    const bytes = Buffer.from(JSON.stringify(list));
    const text = decodeWithoutManagedFields(bytes, 0, bytes.length, 'list');
    expect(text).not.toContain('"manager"');
    expect(JSON.parse(text)).toEqual({ ...list, items: items.map(strip) });
  });

  it('decodes only the given range, leaving the bytes outside it alone', () => {
    const line = event({ name: 'a', managedFields });
    const bytes = Buffer.from(`xx\n${line}\nyy`);
    const text = decodeWithoutManagedFields(bytes, 3, 3 + Buffer.byteLength(line), 'event');
    expect(JSON.parse(text)).toEqual(JSON.parse(event({ name: 'a' })));
    expect(bytes.subarray(bytes.length - 3).toString()).toBe('\nyy');
  });

  const untouchedLists: Array<{ name: string; given: string }> = [
    { name: 'an empty list', given: '{"kind":"List","items":[]}' },
    { name: 'items null', given: '{"kind":"List","items":null}' },
    { name: 'an item that is not an object', given: `{"items":[1,${JSON.stringify(item('a'))}]}` },
    { name: 'a list cut short', given: JSON.stringify({ items: [item('a'), item('b')] }).slice(0, -40) },
    { name: 'text after the list', given: `${JSON.stringify({ items: [item('a')] })}x` },
  ];
  for (const { name, given } of untouchedLists) {
    it(`decodes a list whole: ${name}`, () => {
      const bytes = Buffer.from(given);
      expect(decodeWithoutManagedFields(bytes, 0, bytes.length, 'list')).toBe(given);
    });
  }
});
