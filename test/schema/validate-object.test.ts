import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../src/schema/json-schema.js';
import { firstSchemaViolation } from '../../src/schema/validate-object.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['image'],
      properties: {
        image: { type: 'string', minLength: 1, pattern: '^[a-z./:0-9-]+$' },
        mode: { type: 'string', enum: ['a', 'b'] },
        replicas: { type: 'integer', minimum: 1, maximum: 9 },
        ports: { type: 'array', maxItems: 2, items: { type: 'integer' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        port: { 'x-kubernetes-int-or-string': true },
      },
    },
  },
};

describe('firstSchemaViolation', () => {
  it.each([
    {
      name: 'a valid object',
      given: { spec: { image: 'nginx:1', mode: 'a', replicas: 3, port: 'http' } },
      want: undefined,
    },
    {
      name: 'fields the schema does not know',
      given: { spec: { image: 'x', extra: { y: 1 } }, metadata: {} },
      want: undefined,
    },
    { name: 'a required field missing', given: { spec: {} }, want: { path: '.spec.image', message: 'is required' } },
    {
      name: 'a value outside the enum',
      given: { spec: { image: 'x', mode: 'c' } },
      want: { path: '.spec.mode', message: '"c" is not one of "a", "b"' },
    },
    {
      name: 'a wrong type',
      given: { spec: { image: 'x', replicas: 1.5 } },
      want: { path: '.spec.replicas', message: 'must be of type integer, not 1.5' },
    },
    {
      name: 'a bound',
      given: { spec: { image: 'x', replicas: 10 } },
      want: { path: '.spec.replicas', message: '10 is above the maximum 9' },
    },
    {
      name: 'an item',
      given: { spec: { image: 'x', ports: [1, 'two'] } },
      want: { path: '.spec.ports[1]', message: 'must be of type integer, not "two"' },
    },
    {
      name: 'too many items',
      given: { spec: { image: 'x', ports: [1, 2, 3] } },
      want: { path: '.spec.ports', message: 'has 3 items, more than 2' },
    },
    {
      name: 'a map value',
      given: { spec: { image: 'x', labels: { a: 1 } } },
      want: { path: '.spec.labels.a', message: 'must be of type string, not 1' },
    },
    {
      name: 'a pattern',
      given: { spec: { image: 'X Y' } },
      want: { path: '.spec.image', message: '"X Y" does not match ^[a-z./:0-9-]+$' },
    },
    {
      name: 'int-or-string',
      given: { spec: { image: 'x', port: true } },
      want: { path: '.spec.port', message: 'must be an integer or a string' },
    },
    {
      name: 'a required field with a default (the apiserver fills it)',
      given: { spec: { image: 'x' } },
      schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', required: ['tier'], properties: { tier: { type: 'string', default: 'gold' } } },
        },
      },
      want: undefined,
    },
    { name: 'null where not nullable', given: { spec: null }, want: { path: '.spec', message: 'must not be null' } },
  ] as { name: string; given: unknown; schema?: JSONSchemaProps; want: unknown }[])('$name', (example) => {
    expect(firstSchemaViolation(example.given, example.schema ?? schema)).toEqual(example.want);
  });
});
