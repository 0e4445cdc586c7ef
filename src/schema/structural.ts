/**
 * Stage 4: structural-schema transforms and checks, each a named function tested on
 * its own. The apiserver rejects a CRD whose schema is not structural; kop checks the
 * same rules at generate time and reports every violation with the file:line of the
 * type or field it came from, before any apiserver sees the CRD.
 */
import type { JSONValue } from '../base/index.js';
import { StructuralSchemaError, type SourceLocation } from './errors.js';
import type { JSONSchemaProps, ValidationRule } from './json-schema.js';
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
  const cut = bytes
    .subarray(0, maxLength)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
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
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const)
    node[key]?.forEach((child, i) => visit(child, `${path}.${key}[${i}]`, visitor));
  if (node.not) visit(node.not, `${path}.not`, visitor);
}

/** Every structural rule kop checks; returns the violations (empty when the schema is structural). */
/** The types the apiserver accepts in a CRD schema. */
const SCHEMA_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

export function checkStructural(
  root: JSONSchemaProps,
  origins: SchemaOrigins,
  fallback: SourceLocation,
): StructuralViolation[] {
  const violations: StructuralViolation[] = [];
  // `junctor` is true below allOf/anyOf/oneOf/not, where the apiserver allows value validations only.
  // `typeAllowed` marks the one exception, the `anyOf: [{type: integer}, {type: string}]` of an
  // int-or-string node, also when wrapped in its allOf (`typedAnyOf` on that allOf's branches).
  const walk = (
    node: JSONSchemaProps,
    path: string,
    location: SourceLocation,
    junctor: boolean,
    typeAllowed = false,
    typedAnyOf = false,
  ): void => {
    const here = origins.get(node) ?? location;
    const report = (message: string) => violations.push({ path: path || '.', message, location: here });
    if (node.$ref !== undefined) report('$ref is not allowed; types must be inlined');
    const intOrString = node['x-kubernetes-int-or-string'] === true;
    const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
    if (!junctor && !node.type && !intOrString && !preserve) {
      report('has no type; give the field a concrete type, or use JSON/RawExtension from kop/api for free-form data');
    }
    // What the apiserver answers "Unsupported value" and "items: Required value" to (a +kubebuilder:validation:Type marker can write either).
    if (node.type !== undefined && !SCHEMA_TYPES.includes(node.type))
      report(`type "${node.type}" is not a schema type; use one of ${SCHEMA_TYPES.join(', ')}`);
    if (!junctor && node.type === 'array' && !node.items)
      report(
        'type array needs items; give the field an array type (T[]) instead of +kubebuilder:validation:Type=array',
      );
    if (junctor) checkValueValidationOnly(node, typeAllowed, report);
    if (intOrString && preserve)
      report(
        'x-kubernetes-preserve-unknown-fields cannot be combined with x-kubernetes-int-or-string; drop one of the two markers',
      );
    if (intOrString && node.type)
      report(`type "${node.type}" cannot be combined with x-kubernetes-int-or-string; use IntOrString from kop/api`);
    if (node.uniqueItems === true)
      report(
        'uniqueItems: true is refused by the apiserver (quadratic cost); use +listType=set for unique scalars or +listType=map for keyed objects',
      );
    if (!junctor && node.properties && node.additionalProperties !== undefined)
      report('has both properties and additionalProperties; use either a struct or a map');
    if (!junctor && node['x-kubernetes-embedded-resource'] && node.type !== 'object')
      report('an embedded resource must be an object');
    if (!junctor) checkList(node, report);
    if (!junctor && node.default !== undefined) {
      for (const problem of validateValue(node.default, node, ''))
        report(`default ${JSON.stringify(node.default)} is not valid: ${problem}`);
    }
    for (const [name, child] of Object.entries(node.properties ?? {})) walk(child, `${path}.${name}`, here, junctor);
    if (node.items) walk(node.items, `${path}[*]`, here, junctor);
    if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${path}[*]`, here, junctor);
    node.allOf?.forEach((child, i) => walk(child, `${path}.allOf[${i}]`, here, true, false, intOrString));
    node.anyOf?.forEach((child, i) => walk(child, `${path}.anyOf[${i}]`, here, true, intOrString || typedAnyOf));
    node.oneOf?.forEach((child, i) => walk(child, `${path}.oneOf[${i}]`, here, true));
    if (node.not) walk(node.not, `${path}.not`, here, true);
  };
  walk(root, '', origins.get(root) ?? fallback, false);
  return violations;
}

/**
 * Keys the apiserver refuses below allOf/anyOf/oneOf/not, with its own wording. kop puts a
 * key there when a field and its named type set it differently (see flattenFieldLayer).
 */
const FORBIDDEN_IN_JUNCTORS: readonly [keyof JSONSchemaProps, string][] = [
  ['type', 'must be empty'],
  ['additionalProperties', 'must be undefined'],
  ['default', 'must be undefined'],
  ['title', 'must be empty'],
  ['description', 'must be empty'],
  ['nullable', 'must be false'],
  ['x-kubernetes-preserve-unknown-fields', 'must be undefined'],
  ['x-kubernetes-embedded-resource', 'must be false'],
  ['x-kubernetes-int-or-string', 'must be false'],
  ['x-kubernetes-list-map-keys', 'must be empty'],
  ['x-kubernetes-list-type', 'must be undefined'],
  ['x-kubernetes-map-type', 'must be undefined'],
  ['x-kubernetes-validations', 'must be empty'],
];

function checkValueValidationOnly(
  node: JSONSchemaProps,
  typeAllowed: boolean,
  report: (message: string) => void,
): void {
  for (const [key, rule] of FORBIDDEN_IN_JUNCTORS) {
    const value = node[key];
    if (value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0))
      continue;
    if (key === 'type' && typeAllowed && (value === 'integer' || value === 'string')) continue;
    report(
      `${key} ${rule} to be structural: only value validations may sit under allOf, anyOf, oneOf and not ` +
        '(kop puts a key there when a field and its named type set it differently; set it in one place)',
    );
  }
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
    if (
      items &&
      (items.type === 'object' || items.type === 'array') &&
      items['x-kubernetes-map-type'] !== 'atomic' &&
      items['x-kubernetes-list-type'] !== 'atomic'
    ) {
      report('+listType=set needs scalar items (or atomic ones)');
    }
  }
}

/**
 * Checks a value (a default) against a schema as the apiserver checks a CRD's defaults:
 * the value validations of the node and of everything under allOf/anyOf/oneOf/not, unknown
 * fields, and the one-of rules kop generates as CEL. Returns the problems found.
 */
export function validateValue(value: JSONValue, schema: JSONSchemaProps, path: string): string[] {
  return validateAgainst(value, schema, path, false);
}

/** `nested` is true below a junctor: value validations only, no pruning, no nullable. */
function validateAgainst(value: JSONValue, schema: JSONSchemaProps, path: string, nested: boolean): string[] {
  const problems: string[] = [];
  const at = path || 'the value';
  if (value === null) {
    if (!nested && !schema.nullable) problems.push(`${at} is null and the field is not +nullable`);
    return problems;
  }
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  if (intOrString) {
    if (!(kind === 'string' || (kind === 'number' && Number.isInteger(value)))) {
      problems.push(`${at} must be an integer or a string`);
      return problems;
    }
  } else if (schema.type) {
    const ok =
      schema.type === 'integer'
        ? kind === 'number' && Number.isInteger(value)
        : schema.type === 'number'
          ? kind === 'number'
          : schema.type === kind;
    if (!ok) {
      problems.push(`${at} must be ${schema.type === 'integer' ? 'an integer' : `of type ${schema.type}`}`);
      return problems;
    }
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    problems.push(`${at} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum))
      problems.push(`${at} is below the minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum))
      problems.push(`${at} is above the maximum ${schema.maximum}`);
    if (schema.multipleOf !== undefined && !Number.isInteger(value / schema.multipleOf))
      problems.push(`${at} is not a multiple of ${schema.multipleOf}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength)
      problems.push(`${at} is shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength)
      problems.push(`${at} is longer than ${schema.maxLength}`);
    // The apiserver matches the pattern of an int-or-string field (a Quantity's, say) against its string values too.
    if (schema.pattern !== undefined) {
      try {
        if (!new RegExp(schema.pattern, 'u').test(value)) problems.push(`${at} does not match ${schema.pattern}`);
      } catch {
        // ECMAScript and RE2 differ; the apiserver has the final word on patterns JavaScript cannot compile.
      }
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      problems.push(`${at} has fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      problems.push(`${at} has more than ${schema.maxItems} items`);
    if (schema.items)
      value.forEach((item, i) => problems.push(...validateAgainst(item, schema.items!, `${path}[${i}]`, nested)));
  } else if (typeof value === 'object') {
    const entries = Object.entries(value);
    for (const required of schema.required ?? [])
      if (!(required in value)) problems.push(`${path}.${required} is required`);
    if (schema.minProperties !== undefined && entries.length < schema.minProperties)
      problems.push(`${at} has fewer than ${schema.minProperties} properties`);
    if (schema.maxProperties !== undefined && entries.length > schema.maxProperties)
      problems.push(`${at} has more than ${schema.maxProperties} properties`);
    for (const [key, child] of entries) {
      const childSchema =
        schema.properties?.[key] ??
        (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (childSchema) problems.push(...validateAgainst(child, childSchema, `${path}.${key}`, nested));
      else if (!nested && schema.properties && !schema['x-kubernetes-preserve-unknown-fields'])
        problems.push(`${path}.${key} is not a field (it would be pruned)`);
    }
    for (const rule of schema['x-kubernetes-validations'] ?? []) {
      const broken = brokenOneOfRule(rule, value);
      if (broken) problems.push(`${at} is invalid: ${broken}`);
    }
  }
  problems.push(...junctorProblems(value, schema, path));
  return problems;
}

/**
 * allOf, anyOf, oneOf and not, with the apiserver's wording (its OpenAPI validator's) followed
 * by what each failing branch found, since a branch alone names no field.
 */
function junctorProblems(value: JSONValue, schema: JSONSchemaProps, path: string): string[] {
  const at = path || 'the value';
  const problems: string[] = [];
  const branches = (key: 'allOf' | 'anyOf' | 'oneOf') =>
    (schema[key] ?? []).map((branch, i) => ({
      name: `${key}[${i}]`,
      problems: validateAgainst(value, branch, path, true),
    }));
  const explain = (failed: { name: string; problems: string[] }[]) =>
    failed.map((f) => `${f.name}: ${f.problems.join(', ')}`).join('; ');
  if (schema.allOf) {
    const failed = branches('allOf').filter((b) => b.problems.length > 0);
    if (failed.length > 0) problems.push(`${at} must validate all the schemas (allOf): ${explain(failed)}`);
  }
  if (schema.anyOf) {
    const results = branches('anyOf');
    if (results.every((b) => b.problems.length > 0))
      problems.push(`${at} must validate at least one schema (anyOf): ${explain(results)}`);
  }
  if (schema.oneOf) {
    const results = branches('oneOf');
    const valid = results.filter((b) => b.problems.length === 0).length;
    if (valid === 0)
      problems.push(`${at} must validate one and only one schema (oneOf), and none validated: ${explain(results)}`);
    else if (valid > 1)
      problems.push(`${at} must validate one and only one schema (oneOf). Found ${valid} valid alternatives`);
  }
  if (schema.not && validateAgainst(value, schema.not, path, true).length === 0)
    problems.push(`${at} must not validate the schema (not)`);
  return problems;
}

/** The CEL rule kop writes for +kubebuilder:validation:ExactlyOneOf, AtMostOneOf and AtLeastOneOf. */
const ONE_OF_RULE = /^\[((?:has\(self\.[A-Za-z_$][\w$]*\),?)+)\]\.filter\(x,x==true\)\.size\(\) (==|<=|>=) 1$/;

/**
 * The message of a one-of rule the object breaks, or undefined. Only kop's own one-of rules
 * are evaluated; other CEL rules are left to the apiserver, which runs them on defaults too.
 */
function brokenOneOfRule(rule: ValidationRule, object: { [key: string]: JSONValue }): string | undefined {
  const match = ONE_OF_RULE.exec(rule.rule);
  if (!match) return undefined;
  const fields = [...match[1]!.matchAll(/has\(self\.([^)]+)\)/g)].map((m) => m[1]!);
  const set = fields.filter((f) => f in object).length;
  const holds = match[2] === '==' ? set === 1 : match[2] === '<=' ? set <= 1 : set >= 1;
  return holds ? undefined : (rule.message ?? rule.rule);
}
