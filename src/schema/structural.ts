/**
 * Stage 4: structural-schema transforms and checks, each a named function tested on
 * its own. The apiserver rejects a CRD whose schema is not structural; kop checks the
 * same rules at generate time and reports every violation with the file:line of the
 * type or field it came from, before any apiserver sees the CRD.
 */
import { StructuralSchemaError, type SourceLocation } from './errors.js';
import type { JSONSchemaProps, JSONValue } from './json-schema.js';
import type { SchemaOrigins } from './to-openapi.js';

/** One broken rule, at a JSON path such as `.spec.shards[*].name`. */
export interface StructuralViolation {
  path: string;
  message: string;
  location: SourceLocation;
}

/** Top-level metadata: the apiserver owns ObjectMeta's schema, so the CRD says only `type: object`. */
export function topLevelMetadata(root: JSONSchemaProps): JSONSchemaProps {
  if (root.properties?.metadata) root.properties.metadata = { type: 'object' };
  return root;
}

/**
 * Caps every description at `maxLength` bytes, as controller-gen's `crd:maxDescLen`:
 * cut at the last sentence end within the limit, else at the last whitespace plus
 * "...", else hard; 0 removes descriptions. Large CRDs break client-side apply (256 KiB).
 */
export function truncateDescriptions(root: JSONSchemaProps, maxLength: number): JSONSchemaProps {
  visit(root, '', (node) => {
    if (node.description === undefined) return;
    if (maxLength === 0) delete node.description;
    else node.description = truncateDescription(node.description, maxLength);
  });
  return root;
}

/** One description cut to at most `maxLength` UTF-8 bytes (plus "..." when cut at a word). */
export function truncateDescription(description: string, maxLength: number): string {
  const bytes = Buffer.from(description, 'utf8');
  if (bytes.length <= maxLength) return description;
  const cut = bytes.subarray(0, maxLength).toString('utf8').replace(/\uFFFD$/, '');
  const sentenceEnd = lastIndexOf(cut, /\p{Sentence_Terminal}/u);
  if (sentenceEnd > 0) return cut.slice(0, sentenceEnd + 1);
  const space = lastIndexOf(cut, /\p{White_Space}/u);
  if (space > 0) return `${cut.slice(0, space)}...`;
  return `${cut}...`;
}

function lastIndexOf(text: string, pattern: RegExp): number {
  for (let i = text.length - 1; i >= 0; i--) if (pattern.test(text[i]!)) return i;
  return -1;
}

type Visitor = (node: JSONSchemaProps, path: string) => void;

/** Walks every schema node (properties, items, additionalProperties, junctors). */
function visit(node: JSONSchemaProps, path: string, visitor: Visitor): void {
  visitor(node, path);
  for (const [name, child] of Object.entries(node.properties ?? {})) visit(child, `${path}.${name}`, visitor);
  if (node.items) visit(node.items, `${path}[*]`, visitor);
  if (typeof node.additionalProperties === 'object') visit(node.additionalProperties, `${path}[*]`, visitor);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) node[key]?.forEach((child, i) => visit(child, `${path}.${key}[${i}]`, visitor));
  if (node.not) visit(node.not, `${path}.not`, visitor);
}

/** Every structural rule kop checks; returns the violations (empty when the schema is structural). */
export function checkStructural(root: JSONSchemaProps, origins: SchemaOrigins, fallback: SourceLocation): StructuralViolation[] {
  const violations: StructuralViolation[] = [];
  const walk = (node: JSONSchemaProps, path: string, location: SourceLocation, inJunctor: boolean): void => {
    const here = origins.get(node) ?? location;
    const report = (message: string) => violations.push({ path: path || '.', message, location: here });
    if (node.$ref !== undefined) report('$ref is not allowed; types must be inlined');
    const intOrString = node['x-kubernetes-int-or-string'] === true;
    const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
    if (!inJunctor && !node.type && !intOrString && !preserve) {
      report('has no type; give the field a concrete type, or use JSON/RawExtension from kop/api for free-form data');
    }
    if (intOrString && preserve) report('x-kubernetes-preserve-unknown-fields cannot be combined with x-kubernetes-int-or-string; drop one of the two markers');
    if (intOrString && node.type) report(`type "${node.type}" cannot be combined with x-kubernetes-int-or-string; use IntOrString from kop/api`);
    if (node.uniqueItems === true) report('uniqueItems: true is refused by the apiserver (quadratic cost); use +listType=set for unique scalars or +listType=map for keyed objects');
    if (node.properties && node.additionalProperties !== undefined) report('has both properties and additionalProperties; use either a struct or a map');
    if (node['x-kubernetes-embedded-resource'] && node.type !== 'object') report('an embedded resource must be an object');
    checkList(node, report);
    if (node.default !== undefined) {
      for (const problem of validateValue(node.default, node, '')) report(`default ${JSON.stringify(node.default)} is not valid: ${problem}`);
    }
    for (const [name, child] of Object.entries(node.properties ?? {})) walk(child, `${path}.${name}`, here, false);
    if (node.items) walk(node.items, `${path}[*]`, here, false);
    if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${path}[*]`, here, false);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) node[key]?.forEach((child, i) => walk(child, `${path}.${key}[${i}]`, here, true));
  };
  walk(root, '', origins.get(root) ?? fallback, false);
  return violations;
}

/** Throws a StructuralSchemaError listing every violation, if any. */
export function assertStructural(root: JSONSchemaProps, origins: SchemaOrigins, fallback: SourceLocation): void {
  const violations = checkStructural(root, origins, fallback);
  if (violations.length > 0) throw new StructuralSchemaError(violations);
}

function checkList(node: JSONSchemaProps, report: (message: string) => void): void {
  const listType = node['x-kubernetes-list-type'];
  const keys = node['x-kubernetes-list-map-keys'];
  if (keys && listType !== 'map') report('+listMapKey needs +listType=map');
  if (listType === 'map') {
    const items = node.items;
    if (!items || items.type !== 'object' || !items.properties) {
      report('+listType=map needs a list of objects');
      return;
    }
    if (!keys || keys.length === 0) {
      report('+listType=map needs at least one +listMapKey=<field>');
      return;
    }
    for (const key of keys) {
      const property = items.properties[key];
      if (!property) report(`list map key "${key}" is not a field of the items`);
      else if (!items.required?.includes(key) && property.default === undefined) {
        report(`list map key "${key}" must be required or have a default (remove the "?" or add +kubebuilder:default)`);
      } else if (property.type && !['string', 'integer', 'boolean', 'number'].includes(property.type)) {
        report(`list map key "${key}" must be a scalar`);
      }
    }
  }
  if (listType === 'set') {
    const items = node.items;
    if (items && (items.type === 'object' || items.type === 'array') && items['x-kubernetes-map-type'] !== 'atomic' && items['x-kubernetes-list-type'] !== 'atomic') {
      report('+listType=set needs scalar items (or atomic ones)');
    }
  }
}

/** Checks a value (a default) against a schema; returns the problems found. */
export function validateValue(value: JSONValue, schema: JSONSchemaProps, path: string): string[] {
  const problems: string[] = [];
  const at = path || 'the value';
  if (value === null) {
    if (!schema.nullable) problems.push(`${at} is null and the field is not +nullable`);
    return problems;
  }
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  if (intOrString) {
    if (!(kind === 'string' || (kind === 'number' && Number.isInteger(value)))) problems.push(`${at} must be an integer or a string`);
  } else if (schema.type) {
    const ok =
      schema.type === 'integer' ? kind === 'number' && Number.isInteger(value) : schema.type === 'number' ? kind === 'number' : schema.type === kind;
    if (!ok) {
      problems.push(`${at} must be ${schema.type === 'integer' ? 'an integer' : `of type ${schema.type}`}`);
      return problems;
    }
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) problems.push(`${at} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) problems.push(`${at} is below the minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) problems.push(`${at} is above the maximum ${schema.maximum}`);
    if (schema.multipleOf !== undefined && !Number.isInteger(value / schema.multipleOf)) problems.push(`${at} is not a multiple of ${schema.multipleOf}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) problems.push(`${at} is shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength) problems.push(`${at} is longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !intOrString) {
      try {
        if (!new RegExp(schema.pattern, 'u').test(value)) problems.push(`${at} does not match ${schema.pattern}`);
      } catch {
        // ECMAScript and RE2 differ; the apiserver has the final word on patterns JavaScript cannot compile.
      }
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${at} has fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${at} has more than ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, i) => problems.push(...validateValue(item, schema.items!, `${path}[${i}]`)));
  } else if (typeof value === 'object') {
    const entries = Object.entries(value);
    for (const required of schema.required ?? []) if (!(required in value)) problems.push(`${path}.${required} is required`);
    if (schema.minProperties !== undefined && entries.length < schema.minProperties) problems.push(`${at} has fewer than ${schema.minProperties} properties`);
    if (schema.maxProperties !== undefined && entries.length > schema.maxProperties) problems.push(`${at} has more than ${schema.maxProperties} properties`);
    for (const [key, child] of entries) {
      const childSchema = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (childSchema) problems.push(...validateValue(child, childSchema, `${path}.${key}`));
      else if (schema.properties && !schema['x-kubernetes-preserve-unknown-fields']) problems.push(`${path}.${key} is not a field (it would be pruned)`);
    }
  }
  return problems;
}
