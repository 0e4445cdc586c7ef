import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  arbitraryCustomResource,
  arbitraryFromSchema,
  type OpenApiSchema,
  type SchemaArbitraryOptions,
} from '../../src/testing/schema-arbitrary.js';

/** 200 values of the schema, from a fixed seed. */
function sample(schema: OpenApiSchema, options: SchemaArbitraryOptions = {}): unknown[] {
  return fc.sample(arbitraryFromSchema(schema, options), { numRuns: 200, seed: 7 });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// Each case: a schema, and what every generated value must satisfy.
describe('arbitraryFromSchema', () => {
  const cases: {
    name: string;
    given: OpenApiSchema;
    options?: SchemaArbitraryOptions;
    want: (v: unknown) => boolean;
  }[] = [
    { name: 'boolean', given: { type: 'boolean' }, want: (v) => typeof v === 'boolean' },
    {
      name: 'int32 with bounds',
      given: { type: 'integer', format: 'int32', minimum: 1, maximum: 5 },
      want: (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 5,
    },
    {
      name: 'exclusive bounds',
      given: { type: 'integer', minimum: 0, maximum: 3, exclusiveMinimum: true, exclusiveMaximum: true },
      want: (v) => v === 1 || v === 2,
    },
    {
      name: 'multipleOf',
      given: { type: 'integer', minimum: 0, maximum: 100, multipleOf: 25 },
      want: (v) => [0, 25, 50, 75, 100].includes(v as number),
    },
    {
      name: 'int64 stays a safe integer',
      given: { type: 'integer', format: 'int64' },
      want: (v) => Number.isSafeInteger(v),
    },
    {
      name: 'number',
      given: { type: 'number', minimum: -1, maximum: 1 },
      want: (v) => typeof v === 'number' && Number.isFinite(v) && v >= -1 && v <= 1 && !Object.is(v, -0),
    },
    {
      name: 'string lengths',
      given: { type: 'string', minLength: 2, maxLength: 4 },
      want: (v) => typeof v === 'string' && v.length >= 2 && v.length <= 4,
    },
    {
      name: 'pattern',
      given: { type: 'string', pattern: '^[a-z]+-[0-9]{2}$', maxLength: 20 },
      want: (v) => typeof v === 'string' && /^[a-z]+-[0-9]{2}$/.test(v) && v.length <= 20,
    },
    {
      name: 'date-time is RFC 3339',
      given: { type: 'string', format: 'date-time' },
      want: (v) => typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v),
    },
    {
      name: 'enum',
      given: { type: 'string', enum: ['a', 'b'] },
      want: (v) => v === 'a' || v === 'b',
    },
    {
      name: 'nullable',
      given: { type: 'string', nullable: true, maxLength: 3 },
      want: (v) => v === null || (typeof v === 'string' && v.length <= 3),
    },
    {
      name: 'int-or-string with the quantity pattern',
      given: {
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        pattern:
          '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
        'x-kubernetes-int-or-string': true,
      },
      want: (v) =>
        Number.isInteger(v) ||
        (typeof v === 'string' &&
          /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/.test(
            v,
          )),
    },
    {
      name: 'required fields are always there, others sometimes',
      given: {
        type: 'object',
        required: ['image'],
        properties: { image: { type: 'string', minLength: 1 }, replicas: { type: 'integer', format: 'int32' } },
      },
      want: (v) =>
        isRecord(v) &&
        typeof v.image === 'string' &&
        v.image.length > 0 &&
        Object.keys(v).every((k) => ['image', 'replicas'].includes(k)),
    },
    {
      name: 'a map (additionalProperties) within its size',
      given: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1, maxProperties: 2 },
      want: (v) =>
        isRecord(v) &&
        Object.keys(v).length >= 1 &&
        Object.keys(v).length <= 2 &&
        Object.values(v).every((x) => typeof x === 'string'),
    },
    {
      name: 'preserve-unknown-fields holds JSON',
      given: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      want: (v) => isRecord(v) && JSON.stringify(JSON.parse(JSON.stringify(v))) === JSON.stringify(v),
    },
    {
      name: 'preserve-unknown-fields beside properties keeps the known ones typed',
      given: {
        type: 'object',
        properties: { size: { type: 'integer', minimum: 0, maximum: 9 } },
        'x-kubernetes-preserve-unknown-fields': true,
      },
      want: (v) => isRecord(v) && (v.size === undefined || (Number.isInteger(v.size) && (v.size as number) <= 9)),
    },
    {
      name: 'a list within its size',
      given: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
      want: (v) => Array.isArray(v) && v.length >= 1 && v.length <= 2,
    },
    {
      name: 'a set has no duplicates',
      given: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 3 }, 'x-kubernetes-list-type': 'set' },
      want: (v) => Array.isArray(v) && new Set(v).size === v.length,
    },
    {
      name: 'a list map has unique keys',
      given: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', enum: ['a', 'b', 'c'] }, weight: { type: 'integer' } },
        },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      },
      want: (v) => Array.isArray(v) && new Set(v.map((i) => (i as { name: string }).name)).size === v.length,
    },
    {
      name: 'pruned: required fields may be missing',
      given: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
      options: { pruned: true },
      want: (v) => isRecord(v),
    },
  ];
  for (const { name, given, options, want } of cases) {
    it(name, () => {
      const values = sample(given, options);
      const bad = values.find((v) => !want(v));
      expect(bad, `generated ${JSON.stringify(bad)}`).toBeUndefined();
    });
  }

  it('generates optional fields both present and absent, and pruned objects without required ones', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'string' }, b: { type: 'string' } },
    };
    const whole = sample(schema) as Record<string, unknown>[];
    expect(whole.some((v) => 'b' in v) && whole.some((v) => !('b' in v))).toBe(true);
    expect((sample(schema, { pruned: true }) as Record<string, unknown>[]).some((v) => !('a' in v))).toBe(true);
  });

  it('bounds depth: below maxDepth only required fields, lists at their minimum', () => {
    const leaf: OpenApiSchema = { type: 'object', properties: { x: { type: 'string' } } };
    let schema: OpenApiSchema = leaf;
    for (let i = 0; i < 10; i++)
      schema = {
        type: 'object',
        required: ['next'],
        properties: { next: schema, list: { type: 'array', items: leaf } },
      };
    const depthOf = (v: unknown): number =>
      isRecord(v) || Array.isArray(v) ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;
    for (const value of sample(schema, { maxDepth: 3 })) {
      // The required chain goes all the way down; nothing optional hangs off it below depth 3.
      let node: unknown = value;
      for (let depth = 0; depth < 10; depth++) {
        expect(isRecord(node)).toBe(true);
        if (depth >= 3) expect(Object.keys(node as object)).toEqual(['next']);
        node = (node as Record<string, unknown>).next;
      }
      expect(depthOf(value)).toBeLessThanOrEqual(11);
    }
  });

  it('is reproducible: the same seed gives the same values', () => {
    const schema: OpenApiSchema = { type: 'object', properties: { a: { type: 'string' }, n: { type: 'integer' } } };
    expect(sample(schema)).toEqual(sample(schema));
  });

  it('says which schema it cannot generate for', () => {
    expect(() => arbitraryFromSchema({ type: 'object', properties: { a: {} } }, {}, '.spec')).toThrow(
      /\.spec\.a: the schema has no type/,
    );
    expect(() => arbitraryFromSchema({ type: 'integer', minimum: 5, maximum: 1 }, {}, '.spec.n')).toThrow(
      /\.spec\.n: no integer lies between its minimum and maximum/,
    );
  });
});

describe('arbitraryCustomResource', () => {
  const crd = {
    spec: {
      group: 'cache.example.com',
      names: { kind: 'Redis' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: { type: 'object', required: ['image'], properties: { image: { type: 'string', minLength: 1 } } },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
    },
  };

  it('gives apiVersion, kind, metadata with a valid name and namespace, and the schema for the rest', () => {
    for (const object of fc.sample(arbitraryCustomResource(crd, 'v1'), { numRuns: 200, seed: 3 })) {
      expect(object.apiVersion).toBe('cache.example.com/v1');
      expect(object.kind).toBe('Redis');
      const metadata = object.metadata as { name: string; namespace: string };
      expect(metadata.name).toMatch(/^[a-z]([a-z0-9-]*[a-z0-9])?$/);
      expect(['default', 'team-a']).toContain(metadata.namespace);
      expect((object.spec as { image: string }).image.length).toBeGreaterThan(0);
    }
  });

  it('pruned: spec and metadata may be missing, apiVersion and kind never', () => {
    const objects = fc.sample(arbitraryCustomResource(crd, 'v1', { pruned: true }), { numRuns: 200, seed: 3 });
    expect(objects.some((o) => !('spec' in o))).toBe(true);
    expect(objects.some((o) => !('metadata' in o))).toBe(true);
    expect(objects.every((o) => o.apiVersion === 'cache.example.com/v1' && o.kind === 'Redis')).toBe(true);
  });

  it('names the versions when the one asked for is not there', () => {
    expect(() => arbitraryCustomResource(crd, 'v2')).toThrow(
      /Redis\.cache\.example\.com has no version v2 \(it has v1\)/,
    );
  });
});
