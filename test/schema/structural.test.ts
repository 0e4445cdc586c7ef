import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../src/schema/json-schema.js';
import {
  checkStructural,
  topLevelMetadata,
  truncateDescription,
  truncateDescriptions,
  validateValue,
} from '../../src/schema/structural.js';
import { flattenFieldLayer } from '../../src/schema/to-openapi.js';
import { DEFAULT_CASES, JUNCTOR_KEYS_SCHEMA, JUNCTOR_KEYS_WANT } from './default-cases.js';

const at = { file: 'api/x/v1/types.ts', line: 3 };
const check = (schema: JSONSchemaProps) =>
  checkStructural(schema, new WeakMap(), at).map((v) => `${v.path}: ${v.message}`);

describe('structural checks', () => {
  it('accepts a structural schema', () => {
    expect(
      check({
        type: 'object',
        properties: {
          a: { type: 'string' },
          q: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        },
      }),
    ).toEqual([]);
  });
  const table: { given: JSONSchemaProps; want: RegExp }[] = [
    { given: { type: 'object', properties: { a: {} } }, want: /\.a: has no type/ },
    { given: { type: 'object', properties: { a: { $ref: '#/x', type: 'object' } } }, want: /\$ref is not allowed/ },
    {
      given: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
      want: /both properties and additionalProperties/,
    },
    {
      given: { type: 'object', properties: { a: { type: 'string', 'x-kubernetes-int-or-string': true } } },
      want: /cannot be combined with x-kubernetes-int-or-string/,
    },
    { given: { type: 'string', 'x-kubernetes-embedded-resource': true }, want: /embedded resource must be an object/ },
    {
      given: {
        type: 'array',
        items: { type: 'string' },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['a'],
      },
      want: /needs a list of objects/,
    },
    {
      given: {
        type: 'array',
        items: { type: 'object', properties: { a: { type: 'string' } } },
        'x-kubernetes-list-type': 'map',
      },
      want: /at least one \+listMapKey/,
    },
    {
      given: {
        type: 'array',
        items: { type: 'object', properties: { a: { type: 'string' } } },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['a'],
      },
      want: /must be required or have a default/,
    },
    {
      given: {
        type: 'array',
        items: { type: 'object', properties: { a: { type: 'string' } } },
        'x-kubernetes-list-type': 'set',
      },
      want: /needs scalar items/,
    },
    {
      given: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-map-keys': ['a'] },
      want: /needs \+listType=map/,
    },
    {
      given: { type: 'integer', minimum: 1, default: 0 },
      want: /default 0 is not valid: the value is below the minimum 1/,
    },
    {
      given: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], default: {} },
      want: /\.a is required/,
    },
  ];
  for (const { given, want } of table) {
    it(`reports ${want.source}`, () => {
      expect(check(given).join('\n')).toMatch(want);
    });
  }
});

describe('validateValue', () => {
  it('checks types, enums, patterns, items and properties', () => {
    expect(validateValue('x', { type: 'string', enum: ['a'] }, '')).toEqual(['the value must be one of "a"']);
    expect(validateValue('ab', { type: 'string', pattern: '^a+$' }, '')).toHaveLength(1);
    expect(validateValue([1, 'a'], { type: 'array', items: { type: 'integer' } }, '')).toEqual([
      '[1] must be an integer',
    ]);
    expect(validateValue({ b: 1 }, { type: 'object', properties: { a: { type: 'string' } } }, '')).toEqual([
      '.b is not a field (it would be pruned)',
    ]);
    expect(validateValue('25%', { 'x-kubernetes-int-or-string': true }, '')).toEqual([]);
    expect(validateValue(null, { type: 'string', nullable: true }, '')).toEqual([]);
  });

  it('leaves CEL rules other than its own one-of rules to the apiserver', () => {
    expect(
      validateValue({}, { type: 'object', 'x-kubernetes-validations': [{ rule: 'false', message: 'never' }] }, ''),
    ).toEqual([]);
  });

  for (const { name, value, schema, want } of DEFAULT_CASES) {
    it(`checks ${name}`, () => {
      expect(validateValue(value, schema, '')).toEqual(want);
    });
  }
});

describe('value validations only under junctors', () => {
  it('reports keys the apiserver forbids under allOf/anyOf/oneOf/not, with its wording', () => {
    expect(check(JUNCTOR_KEYS_SCHEMA).map((v) => v.replace(/: only value validations.*/, ''))).toEqual(
      JUNCTOR_KEYS_WANT,
    );
  });
  it('allows the int-or-string anyOf and value validations with nested properties', () => {
    expect(check({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] })).toEqual([]);
    expect(
      check({
        'x-kubernetes-int-or-string': true,
        allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^a' }],
      }),
    ).toEqual([]);
    expect(check({ 'x-kubernetes-int-or-string': true, allOf: [{ type: 'string' }] }).join()).toMatch(
      /\.allOf\[0\]: type must be empty to be structural/,
    );
    expect(
      check({
        type: 'object',
        properties: { p: { type: 'integer' } },
        allOf: [{ properties: { p: { minimum: 3 } } }, { required: ['p'] }],
      }),
    ).toEqual([]);
  });
});

describe('transforms', () => {
  it('topLevelMetadata keeps only type: object', () => {
    expect(
      topLevelMetadata({
        type: 'object',
        properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } } },
      }).properties!.metadata,
    ).toEqual({
      type: 'object',
    });
  });
  it('truncates descriptions like controller-gen', () => {
    expect(truncateDescription('First sentence. Second sentence here.', 20)).toBe('First sentence.');
    expect(truncateDescription('words without any end at all', 15)).toBe('words without...');
    expect(truncateDescription('abcdefghij', 5)).toBe('abcde...');
    expect(truncateDescription('short', 50)).toBe('short');
    const schema = truncateDescriptions(
      { type: 'object', description: 'x', properties: { a: { type: 'string', description: 'y' } } },
      0,
    );
    expect(schema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });
  it('flattens a field layer over its named type', () => {
    const merged = flattenFieldLayer(
      {
        type: 'string',
        description: 'type doc',
        maxLength: 63,
        enum: ['a'],
        'x-kubernetes-validations': [{ rule: 'type' }],
      },
      {
        description: 'field doc',
        maxLength: 20,
        minLength: 1,
        enum: ['b'],
        'x-kubernetes-validations': [{ rule: 'field' }],
      },
    );
    expect(merged).toEqual({
      type: 'string',
      description: 'field doc',
      minLength: 1,
      enum: ['a'],
      'x-kubernetes-validations': [{ rule: 'field' }, { rule: 'type' }],
      allOf: [{ maxLength: 63 }, { maxLength: 20 }],
    });
  });
});
