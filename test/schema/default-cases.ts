/**
 * Defaults checked against allOf/anyOf/oneOf/not, int-or-string patterns and kop's one-of
 * rules. Each `want` is what kop says; test/schema/apiserver.test.ts sends every case to a
 * real kube-apiserver and checks that it refuses exactly the defaults kop refuses.
 */
import type { JSONValue } from '../../src/base/json-value.js';
import type { JSONSchemaProps } from '../../src/schema/json-schema.js';

/** One default and the schema of its field. */
export interface DefaultCase {
  name: string;
  value: JSONValue;
  schema: JSONSchemaProps;
  /** kop's problems; empty when the default is valid. */
  want: string[];
}

export const DEFAULT_CASES: DefaultCase[] = [
  {
    name: 'allOf, one branch broken',
    value: 'abcdefgh',
    schema: { type: 'string', allOf: [{ maxLength: 63 }, { maxLength: 5 }] },
    want: ['the value must validate all the schemas (allOf): allOf[1]: the value is longer than 5'],
  },
  {
    name: 'allOf, all branches hold',
    value: 'abc',
    schema: { type: 'string', allOf: [{ maxLength: 63 }, { maxLength: 5 }] },
    want: [],
  },
  {
    name: 'allOf, nested property',
    value: { p: 1 },
    schema: { type: 'object', properties: { p: { type: 'integer' } }, allOf: [{ properties: { p: { minimum: 3 } } }] },
    want: ['the value must validate all the schemas (allOf): allOf[0]: .p is below the minimum 3'],
  },
  {
    name: 'allOf, required',
    value: {},
    schema: { type: 'object', properties: { p: { type: 'integer' } }, allOf: [{ required: ['p'] }] },
    want: ['the value must validate all the schemas (allOf): allOf[0]: .p is required'],
  },
  {
    name: 'allOf, items',
    value: [1, 5],
    schema: { type: 'array', items: { type: 'integer' }, allOf: [{ items: { maximum: 3 } }] },
    want: ['the value must validate all the schemas (allOf): allOf[0]: [1] is above the maximum 3'],
  },
  {
    name: 'allOf, enum',
    value: 'z',
    schema: { type: 'string', allOf: [{ enum: ['x', 'y'] }] },
    want: ['the value must validate all the schemas (allOf): allOf[0]: the value must be one of "x", "y"'],
  },
  {
    name: 'anyOf, none holds',
    value: 5,
    schema: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 2 }] },
    want: [
      'the value must validate at least one schema (anyOf): anyOf[0]: the value is below the minimum 10; anyOf[1]: the value is above the maximum 2',
    ],
  },
  {
    name: 'anyOf, one holds',
    value: 1,
    schema: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 2 }] },
    want: [],
  },
  {
    name: 'oneOf, two hold',
    value: 5,
    schema: { type: 'integer', oneOf: [{ minimum: 1 }, { minimum: 2 }] },
    want: ['the value must validate one and only one schema (oneOf). Found 2 valid alternatives'],
  },
  {
    name: 'oneOf, exactly one holds',
    value: 1,
    schema: { type: 'integer', oneOf: [{ minimum: 1 }, { minimum: 2 }] },
    want: [],
  },
  {
    name: 'not, branch holds',
    value: 'xy',
    schema: { type: 'string', not: { pattern: '^x' } },
    want: ['the value must not validate the schema (not)'],
  },
  {
    name: 'int-or-string, pattern on the node',
    value: 'abc',
    schema: {
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      pattern: '^[0-9]+$',
    },
    want: ['the value does not match ^[0-9]+$'],
  },
  {
    name: 'int-or-string, integer',
    value: 3,
    schema: {
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      pattern: '^[0-9]+$',
    },
    want: [],
  },
  {
    name: 'null where nullable, allOf ignored',
    value: null,
    schema: { type: 'string', nullable: true, allOf: [{ maxLength: 1 }] },
    want: [],
  },
  {
    name: 'unknown field, allOf branch names it',
    value: { p: 5, zz: 1 },
    schema: { type: 'object', properties: { p: { type: 'integer' } }, allOf: [{ properties: { p: { minimum: 3 } } }] },
    want: ['.zz is not a field (it would be pruned)'],
  },
  {
    name: 'kop one-of rule broken',
    value: { p: 'a', q: 'b' },
    schema: {
      type: 'object',
      properties: { p: { type: 'string' }, q: { type: 'string' } },
      'x-kubernetes-validations': [
        {
          message: 'exactly one of the fields in [p q] must be set',
          rule: '[has(self.p),has(self.q)].filter(x,x==true).size() == 1',
        },
      ],
    },
    want: ['the value is invalid: exactly one of the fields in [p q] must be set'],
  },
  {
    name: 'kop one-of rules kept',
    value: { p: 'a' },
    schema: {
      type: 'object',
      properties: { p: { type: 'string' }, q: { type: 'string' } },
      'x-kubernetes-validations': [
        { message: 'at most one', rule: '[has(self.p),has(self.q)].filter(x,x==true).size() <= 1' },
        { message: 'at least one', rule: '[has(self.p),has(self.q)].filter(x,x==true).size() >= 1' },
      ],
    },
    want: [],
  },
];

/** Keys the apiserver forbids under junctors, as kop's own layering could put them there. */
export const JUNCTOR_KEYS_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    level: { type: 'string', allOf: [{ default: 'info' }, { default: 'warn' }] },
    sizes: {
      type: 'object',
      additionalProperties: { type: 'string' },
      allOf: [{ additionalProperties: { maxLength: 1 } }],
    },
    spec: { type: 'object', not: { properties: { a: { type: 'string', nullable: true } } } },
  },
};

/** kop's violations for JUNCTOR_KEYS_SCHEMA, without the explanation after the apiserver's wording. */
export const JUNCTOR_KEYS_WANT: string[] = [
  '.level.allOf[0]: default must be undefined to be structural',
  '.level.allOf[1]: default must be undefined to be structural',
  '.sizes.allOf[0]: additionalProperties must be undefined to be structural',
  '.spec.not.a: type must be empty to be structural',
  '.spec.not.a: nullable must be false to be structural',
];
