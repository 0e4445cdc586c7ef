/**
 * Arbitrary values from a CRD's OpenAPI v3 schema, for property-based tests (fast-check): every
 * value the generator makes is one the schema admits (types, enums, bounds, lengths, patterns,
 * formats, required fields, nullable, int-or-string, preserve-unknown-fields, maps, lists and
 * their list-type uniqueness), with sizes bounded so a thousand objects take well under a second.
 * CEL rules (x-kubernetes-validations) are not evaluated: a value may break one.
 */
import fc from 'fast-check';

/** The parts of an OpenAPI v3 schema (a CRD's JSONSchemaProps) the generator reads. */
export interface OpenApiSchema {
  type?: string;
  format?: string;
  enum?: unknown[];
  nullable?: boolean;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  anyOf?: OpenApiSchema[];
  allOf?: OpenApiSchema[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  [keyword: string]: unknown;
}

/** Bounds of the generated values. */
export interface SchemaArbitraryOptions {
  /**
   * Nesting below which only required fields are generated and lists and maps hold their
   * minimum; default 6 (the root object is depth 0).
   */
  maxDepth?: number;
  /** Most items of a list and entries of a map, unless the schema asks for more; default 3. */
  maxItems?: number;
  /** Longest string, unless the schema asks for more; default 16. */
  maxLength?: number;
  /**
   * Ignore `required` (and minItems, minProperties, minLength) everywhere: the partial
   * objects the apiserver converts for server-side apply, with any field missing.
   */
  pruned?: boolean;
}

interface Context {
  maxDepth: number;
  maxItems: number;
  maxLength: number;
  pruned: boolean;
}

/** An arbitrary of the values `schema` admits; `path` names the schema in errors (e.g. `.spec`). */
export function arbitraryFromSchema(
  schema: OpenApiSchema,
  options: SchemaArbitraryOptions = {},
  path = '',
): fc.Arbitrary<unknown> {
  const context: Context = {
    maxDepth: options.maxDepth ?? 6,
    maxItems: options.maxItems ?? 3,
    maxLength: options.maxLength ?? 16,
    pruned: options.pruned ?? false,
  };
  return valueOf(schema, context, 0, path);
}

function valueOf(schema: OpenApiSchema, context: Context, depth: number, path: string): fc.Arbitrary<unknown> {
  const value = nonNullValueOf(schema, context, depth, path);
  return schema.nullable === true
    ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: value })
    : value;
}

function nonNullValueOf(schema: OpenApiSchema, context: Context, depth: number, path: string): fc.Arbitrary<unknown> {
  if (schema.enum !== undefined) {
    const values = schema.enum.filter((v) => v !== null);
    if (values.length === 0) throw new Error(`${where(path)}: enum has no value but null`);
    return fc.constantFrom(...values).map((v) => structuredClone(v));
  }
  if (schema['x-kubernetes-int-or-string'] === true) {
    const pattern = schema.pattern ?? schema.anyOf?.find((s) => s.pattern !== undefined)?.pattern;
    return fc.oneof(
      fc.integer({ min: 0, max: 1_000_000 }),
      pattern !== undefined ? stringMatching(pattern, schema, context, path) : plainString(schema, context),
    );
  }
  switch (schema.type) {
    case 'string':
      return stringOf(schema, context, path);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerOf(schema, path);
    case 'number':
      return numberOf(schema);
    case 'array':
      return arrayOf(schema, context, depth, path);
    case 'object':
      return objectOf(schema, context, depth, path);
    case undefined:
      if (schema['x-kubernetes-preserve-unknown-fields'] === true) return anyJson(context, depth);
      throw new Error(`${where(path)}: the schema has no type (a structural schema types every node)`);
    default:
      throw new Error(`${where(path)}: type "${schema.type}" is not an OpenAPI type`);
  }
}

function where(path: string): string {
  return path === '' ? 'the schema' : path;
}

function lengthBounds(schema: OpenApiSchema, context: Context): { minLength: number; maxLength: number } {
  const minLength = context.pruned ? 0 : (schema.minLength ?? 0);
  return { minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? Infinity, context.maxLength)) };
}

function plainString(schema: OpenApiSchema, context: Context): fc.Arbitrary<string> {
  return fc.string(lengthBounds(schema, context));
}

function stringMatching(pattern: string, schema: OpenApiSchema, context: Context, path: string): fc.Arbitrary<string> {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (error) {
    throw new Error(`${where(path)}: pattern ${pattern} is not a JavaScript regular expression`, { cause: error });
  }
  const { minLength } = lengthBounds(schema, context);
  // The schema's own maxLength bounds the strings; the option's does not cut a pattern short.
  const maxLength = schema.maxLength ?? Infinity;
  return fc.stringMatching(regex, { size: 'xsmall' }).filter((s) => s.length >= minLength && s.length <= maxLength);
}

/** Kubernetes' string formats the apiserver checks, each with values it admits. */
const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  'date-time': () =>
    fc
      .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
  date: () =>
    fc
      .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  duration: () => fc.tuple(fc.nat(99), fc.nat(59), fc.nat(59)).map(([h, m, s]) => `${h}h${m}m${s}s`),
  byte: () => fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString('base64')),
  uuid: () => fc.uuid(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  email: () => fc.emailAddress(),
  hostname: () => dnsLabel().map((label) => `${label}.example.com`),
  uri: () => fc.webUrl(),
  int32: () => fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map(String),
  int64: () => fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map(String),
};

function stringOf(schema: OpenApiSchema, context: Context, path: string): fc.Arbitrary<string> {
  if (schema.pattern !== undefined) return stringMatching(schema.pattern, schema, context, path);
  const format = schema.format !== undefined ? FORMATS[schema.format] : undefined;
  if (format !== undefined) {
    const { minLength } = lengthBounds(schema, context);
    const maxLength = schema.maxLength ?? Infinity;
    return format().filter((s) => s.length >= minLength && s.length <= maxLength);
  }
  return plainString(schema, context);
}

function integerOf(schema: OpenApiSchema, path: string): fc.Arbitrary<number> {
  const [low, high] =
    schema.format === 'int32' ? [-(2 ** 31), 2 ** 31 - 1] : [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
  let min = schema.minimum !== undefined ? Math.ceil(schema.minimum) : low;
  let max = schema.maximum !== undefined ? Math.floor(schema.maximum) : high;
  if (schema.exclusiveMinimum === true && min === schema.minimum) min += 1;
  if (schema.exclusiveMaximum === true && max === schema.maximum) max -= 1;
  min = Math.max(min, low);
  max = Math.min(max, high);
  if (min > max) throw new Error(`${where(path)}: no integer lies between its minimum and maximum`);
  const step = schema.multipleOf;
  if (step !== undefined && Number.isInteger(step) && step > 0) {
    const first = Math.ceil(min / step);
    const last = Math.floor(max / step);
    if (first > last) throw new Error(`${where(path)}: no multiple of ${step} lies between its minimum and maximum`);
    return fc.integer({ min: first, max: last }).map((n) => n * step);
  }
  return fc.integer({ min, max });
}

function numberOf(schema: OpenApiSchema): fc.Arbitrary<number> {
  return fc
    .double({
      min: schema.minimum ?? -1e9,
      max: schema.maximum ?? 1e9,
      minExcluded: schema.exclusiveMinimum === true,
      maxExcluded: schema.exclusiveMaximum === true,
      noNaN: true,
      noDefaultInfinity: true,
    })
    .map((n) => (Object.is(n, -0) ? 0 : n));
}

function countBounds(
  min: number | undefined,
  max: number | undefined,
  context: Context,
  depth: number,
): { min: number; max: number } {
  const least = context.pruned ? 0 : (min ?? 0);
  const most = depth >= context.maxDepth ? least : Math.max(least, Math.min(max ?? Infinity, context.maxItems));
  return { min: least, max: most };
}

function arrayOf(schema: OpenApiSchema, context: Context, depth: number, path: string): fc.Arbitrary<unknown[]> {
  if (schema.items === undefined) throw new Error(`${where(path)}: an array schema needs items`);
  const item = valueOf(schema.items, context, depth + 1, `${path}[]`);
  const { min, max } = countBounds(schema.minItems, schema.maxItems, context, depth);
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set')
    return fc.uniqueArray(item, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) });
  if (listType === 'map') {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    return fc.uniqueArray(item, {
      minLength: min,
      maxLength: max,
      selector: (v) => JSON.stringify(keys.map((k) => (v as Record<string, unknown> | null)?.[k])),
    });
  }
  return fc.array(item, { minLength: min, maxLength: max });
}

/** Keys of maps and of unknown fields: short and lowercase, as labels and config keys are. */
function mapKey(): fc.Arbitrary<string> {
  return fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
}

function dnsLabel(): fc.Arbitrary<string> {
  return fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
}

/** Any JSON value, for preserve-unknown-fields; nesting bounded by the depth left. */
function anyJson(context: Context, depth: number): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: Math.max(0, Math.min(2, context.maxDepth - depth)) }).map((v) => normaliseJson(v));
}

/** -0 becomes 0 (JSON has no -0, so no value read from the apiserver holds one). */
function normaliseJson(value: unknown): unknown {
  if (typeof value === 'number') return Object.is(value, -0) ? 0 : value;
  if (Array.isArray(value)) return value.map(normaliseJson);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normaliseJson(v)]));
  return value;
}

function objectOf(
  schema: OpenApiSchema,
  context: Context,
  depth: number,
  path: string,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  const additional = schema.additionalProperties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const { min, max } = countBounds(schema.minProperties, schema.maxProperties, context, depth);
  if (names.length === 0) {
    if (typeof additional === 'object') {
      const value = valueOf(additional, context, depth + 1, `${path}[*]`);
      return fc.dictionary(mapKey(), value, { minKeys: min, maxKeys: max, noNullPrototype: true });
    }
    if (preserve || additional === true)
      return fc.dictionary(mapKey(), anyJson(context, depth + 1), {
        minKeys: min,
        maxKeys: max,
        noNullPrototype: true,
      });
    if (schema['x-kubernetes-embedded-resource'] === true) return embeddedResource(context);
    // `type: object` alone (ObjectMeta below the root, RawExtension): an empty object is valid.
    return fc.constant({});
  }
  const required = context.pruned ? [] : (schema.required ?? []).filter((name) => name in properties);
  // Below maxDepth only what is required, so generation always ends.
  const wanted = depth >= context.maxDepth ? required : names;
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of wanted) model[name] = valueOf(properties[name]!, context, depth + 1, `${path}.${name}`);
  let record: fc.Arbitrary<Record<string, unknown>> = fc.record(model, {
    requiredKeys: required,
    noNullPrototype: true,
  });
  if (schema['x-kubernetes-embedded-resource'] === true)
    record = fc.tuple(record, embeddedResource(context)).map(([fields, resource]) => ({ ...resource, ...fields }));
  if (preserve && depth < context.maxDepth) {
    const unknown = fc.dictionary(
      mapKey().filter((key) => !(key in properties)),
      anyJson(context, depth + 1),
      { maxKeys: 2, noNullPrototype: true },
    );
    record = fc.tuple(record, unknown).map(([known, extra]) => ({ ...extra, ...known }));
  }
  const least = schema.minProperties;
  const most = schema.maxProperties;
  if ((least !== undefined && !context.pruned) || most !== undefined)
    record = record.filter((o) => {
      const count = Object.keys(o).length;
      return (context.pruned || count >= (least ?? 0)) && count <= (most ?? Infinity);
    });
  return record;
}

/** apiVersion, kind and metadata of an embedded object (x-kubernetes-embedded-resource). */
function embeddedResource(context: Context): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      apiVersion: fc.constantFrom('v1', 'apps/v1', 'example.com/v1alpha1'),
      kind: fc.constantFrom('ConfigMap', 'Deployment', 'Example'),
      metadata: objectMetaArbitrary({ namespaced: false, pruned: context.pruned }),
    },
    { requiredKeys: context.pruned ? [] : ['apiVersion', 'kind'], noNullPrototype: true },
  );
}

/**
 * Object metadata the apiserver admits: a name (a DNS subdomain), the namespace for a
 * namespaced kind, and some labels and annotations (which conversions may use to carry fields).
 */
export function objectMetaArbitrary(
  options: { namespaced: boolean; pruned?: boolean } = { namespaced: true },
): fc.Arbitrary<Record<string, unknown>> {
  const qualified = fc
    .tuple(fc.option(fc.constantFrom('example.com/', 'app.kubernetes.io/'), { nil: '' }), dnsLabel())
    .map(([prefix, name]) => `${prefix}${name}`);
  const model: Record<string, fc.Arbitrary<unknown>> = {
    name: dnsLabel(),
    ...(options.namespaced ? { namespace: fc.constantFrom('default', 'team-a') } : {}),
    labels: fc.dictionary(qualified, fc.stringMatching(/^([a-z0-9]([a-z0-9._-]{0,10}[a-z0-9])?)?$/), {
      minKeys: 1, // metadata's maps are omitted when empty: the apiserver never sends `labels: {}`
      maxKeys: 2,
      noNullPrototype: true,
    }),
    annotations: fc.dictionary(qualified, fc.string({ maxLength: 16 }), {
      minKeys: 1,
      maxKeys: 2,
      noNullPrototype: true,
    }),
  };
  return fc.record(model, {
    requiredKeys: options.pruned === true ? [] : ['name', ...(options.namespaced ? ['namespace'] : [])],
    noNullPrototype: true,
  });
}

/** One version of a CRD, as the generator needs it. */
export interface CrdVersionSource {
  spec: {
    group: string;
    names: { kind: string };
    scope?: string;
    versions: Array<{ name: string; schema?: { openAPIV3Schema?: OpenApiSchema }; [field: string]: unknown }>;
    [field: string]: unknown;
  };
}

/**
 * Arbitrary objects of one version of a custom resource: `apiVersion` and `kind` of that
 * version, metadata the apiserver admits (objectMetaArbitrary), and every other top-level field
 * from the version's schema. With `pruned`, any field but apiVersion and kind may be missing
 * (metadata and spec too), as in what the apiserver converts for server-side apply.
 */
export function arbitraryCustomResource(
  crd: CrdVersionSource,
  version: string,
  options: SchemaArbitraryOptions = {},
): fc.Arbitrary<Record<string, unknown>> {
  const { group, names, versions } = crd.spec;
  const found = versions.find((v) => v.name === version);
  if (found === undefined)
    throw new Error(
      `${names.kind}.${group} has no version ${version} (it has ${versions.map((v) => v.name).join(', ')})`,
    );
  const schema = found.schema?.openAPIV3Schema;
  if (schema === undefined) throw new Error(`${names.kind}.${group} ${version} has no openAPIV3Schema`);
  const pruned = options.pruned ?? false;
  const { apiVersion: _apiVersion, kind: _kind, metadata: _metadata, ...fields } = schema.properties ?? {};
  const body = arbitraryFromSchema({ ...schema, properties: fields }, options) as fc.Arbitrary<Record<string, unknown>>;
  const metadata = objectMetaArbitrary({ namespaced: crd.spec.scope !== 'Cluster', pruned });
  const apiVersion = group === '' ? version : `${group}/${version}`;
  return fc.tuple(body, pruned ? fc.option(metadata, { nil: undefined }) : metadata).map(([rest, meta]) => ({
    apiVersion,
    kind: names.kind,
    ...(meta !== undefined ? { metadata: meta } : {}),
    ...rest,
  }));
}
