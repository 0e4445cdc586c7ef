/**
 * Where two versions of a kind differ in what they can hold: the first field whose schema is
 * not the same, descriptions aside (a comment does not change what a version stores). `kop
 * generate` uses it to say when two versions could convert by apiVersion alone (the CRD's
 * conversion strategy None) and when a recorded None would drop fields.
 */
import { isDeepStrictEqual } from 'node:util';

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', 'dependencies']);
/** Keywords whose value is a schema, a list of schemas, or (additionalProperties) a boolean. */
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'additionalItems', 'not', 'allOf', 'anyOf', 'oneOf']);

/**
 * The path of the first difference between two openAPIV3Schemas (`.spec.replicas`, `.spec.ports[*]`,
 * a keyword in parentheses when the field's own rules differ: `.spec.mode (enum)`), or undefined
 * when they hold the same objects. Descriptions are ignored.
 */
export function schemaDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (!isObject(a) || !isObject(b)) return isDeepStrictEqual(a, b) ? undefined : path || '.';
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => key !== 'description').sort();
  // Fields first: a field that one version lacks names the field, not the enclosing `properties`.
  keys.sort((x, y) => Number(y === 'properties') - Number(x === 'properties'));
  for (const key of keys) {
    const left = a[key];
    const right = b[key];
    if (SCHEMA_MAPS.has(key) && isObject(left) && isObject(right)) {
      const names = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
      for (const name of names) {
        const at = key === 'properties' ? `${path}.${name}` : `${path} (${key}.${name})`;
        if (!(name in left) || !(name in right)) return at;
        const found = schemaDifference(left[name], right[name], at);
        if (found !== undefined) return found;
      }
      continue;
    }
    if (SCHEMA_VALUES.has(key)) {
      const at = key === 'items' ? `${path}[*]` : `${path} (${key})`;
      if (Array.isArray(left) && Array.isArray(right)) {
        if (left.length !== right.length) return at;
        for (const [index, item] of left.entries()) {
          const found = schemaDifference(item, right[index], at);
          if (found !== undefined) return found;
        }
        continue;
      }
      const found = schemaDifference(left, right, at);
      if (found !== undefined) return found;
      continue;
    }
    if (!isDeepStrictEqual(left, right)) return `${path || '.'} (${key})`;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
