/**
 * Checks an object against a CRD version's structural schema, for the rules a schema change
 * most often tightens: `type`, `required`, `enum`, `nullable`, bounds (`minimum`, `maximum`,
 * `exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `maxLength`, `minItems`, `maxItems`,
 * `minProperties`, `maxProperties`), `pattern` and `multipleOf`. Fields the schema does not know are
 * left alone (the apiserver prunes them), and CEL rules, formats and `x-kubernetes-*` list rules
 * are not checked: a clean answer is no promise that the apiserver accepts the object, a
 * problem found is one it would refuse.
 */
import type { JSONSchemaProps } from './json-schema.js';

/** One rule an object breaks: where (`.spec.mode`) and why. */
export interface SchemaViolation {
  path: string;
  message: string;
}

/** The first violation of `schema` in `value`, or undefined. `path` is where `value` sits. */
export function firstSchemaViolation(value: unknown, schema: JSONSchemaProps, path = ''): SchemaViolation | undefined {
  const at = path || '.';
  if (value === null) return schema.nullable === true ? undefined : { path: at, message: 'must not be null' };
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (typeof value !== 'string' && !Number.isInteger(value))
      return { path: at, message: 'must be an integer or a string' };
  } else if (schema.type !== undefined) {
    const problem = typeProblem(value, schema.type);
    if (problem !== undefined) return { path: at, message: problem };
  }
  if (schema.enum !== undefined && !schema.enum.some((allowed) => sameJson(allowed, value)))
    return {
      path: at,
      message: `${JSON.stringify(value)} is not one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`,
    };
  if (typeof value === 'number') return numberProblem(value, schema, at);
  if (typeof value === 'string') return stringProblem(value, schema, at);
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      return { path: at, message: `has ${value.length} items, fewer than ${schema.minItems}` };
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      return { path: at, message: `has ${value.length} items, more than ${schema.maxItems}` };
    if (schema.items !== undefined) {
      for (const [index, item] of value.entries()) {
        const found = firstSchemaViolation(item, schema.items, `${path}[${index}]`);
        if (found) return found;
      }
    }
    return undefined;
  }
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const count = Object.keys(object).length;
    if (schema.minProperties !== undefined && count < schema.minProperties)
      return { path: at, message: `has ${count} fields, fewer than ${schema.minProperties}` };
    if (schema.maxProperties !== undefined && count > schema.maxProperties)
      return { path: at, message: `has ${count} fields, more than ${schema.maxProperties}` };
    for (const name of schema.required ?? []) {
      // The apiserver fills a missing field that has a default, on read from etcd too.
      if (!(name in object) && schema.properties?.[name]?.default === undefined)
        return { path: `${path}.${name}`, message: 'is required' };
    }
    for (const [name, field] of Object.entries(object)) {
      const fieldSchema =
        schema.properties?.[name] ??
        (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (fieldSchema === undefined) continue;
      const found = firstSchemaViolation(field, fieldSchema, `${path}.${name}`);
      if (found) return found;
    }
  }
  return undefined;
}

function typeProblem(value: unknown, type: string): string | undefined {
  const ok =
    type === 'object'
      ? typeof value === 'object' && !Array.isArray(value)
      : type === 'array'
        ? Array.isArray(value)
        : type === 'integer'
          ? Number.isInteger(value)
          : type === 'number'
            ? typeof value === 'number'
            : type === 'string'
              ? typeof value === 'string'
              : type === 'boolean'
                ? typeof value === 'boolean'
                : true;
  return ok ? undefined : `must be of type ${type}, not ${JSON.stringify(value)}`;
}

function numberProblem(value: number, schema: JSONSchemaProps, at: string): SchemaViolation | undefined {
  const { minimum, maximum } = schema;
  if (minimum !== undefined && (schema.exclusiveMinimum === true ? value <= minimum : value < minimum))
    return { path: at, message: `${value} is below the minimum ${minimum}` };
  if (maximum !== undefined && (schema.exclusiveMaximum === true ? value >= maximum : value > maximum))
    return { path: at, message: `${value} is above the maximum ${maximum}` };
  if (schema.multipleOf !== undefined && value % schema.multipleOf !== 0)
    return { path: at, message: `${value} is not a multiple of ${schema.multipleOf}` };
  return undefined;
}

function stringProblem(value: string, schema: JSONSchemaProps, at: string): SchemaViolation | undefined {
  // The apiserver counts characters (code points), not UTF-16 units.
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength)
    return { path: at, message: `is ${length} characters, fewer than ${schema.minLength}` };
  if (schema.maxLength !== undefined && length > schema.maxLength)
    return { path: at, message: `is ${length} characters, more than ${schema.maxLength}` };
  if (schema.pattern !== undefined) {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      // A pattern JavaScript cannot read (RE2 syntax it lacks) is not checked here.
    }
    if (pattern !== undefined && !pattern.test(value))
      return { path: at, message: `${JSON.stringify(value)} does not match ${schema.pattern}` };
  }
  return undefined;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
