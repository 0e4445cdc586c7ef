import { describe, expect, it } from 'vitest';
import { schemaDifference } from '../../src/schema/schema-difference.js';

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('schemaDifference', () => {
  it.each([
    {
      name: 'the same schema, descriptions aside',
      given: [
        object({ spec: object({ a: { type: 'string', description: 'one' } }) }, { description: 'x' }),
        object({ spec: object({ a: { type: 'string', description: 'two' } }) }),
      ],
      want: undefined,
    },
    {
      name: 'a field one version lacks',
      given: [object({ spec: object({ a: { type: 'string' } }) }), object({ spec: object({}) })],
      want: '.spec.a',
    },
    {
      name: 'a field named description is a field, not a comment',
      given: [object({ spec: object({ description: { type: 'string' } }) }), object({ spec: object({}) })],
      want: '.spec.description',
    },
    {
      name: 'a narrowed enum',
      given: [
        object({ mode: { type: 'string', enum: ['a', 'b'] } }),
        object({ mode: { type: 'string', enum: ['a'] } }),
      ],
      want: '.mode (enum)',
    },
    {
      name: 'a field newly required',
      given: [object({ a: { type: 'string' } }), object({ a: { type: 'string' } }, { required: ['a'] })],
      want: '. (required)',
    },
    {
      name: 'list items',
      given: [
        object({ ports: { type: 'array', items: { type: 'integer' } } }),
        object({ ports: { type: 'array', items: { type: 'string' } } }),
      ],
      want: '.ports[*] (type)',
    },
  ])('$name', ({ given, want }) => {
    expect(schemaDifference(given[0], given[1])).toBe(want);
  });
});
