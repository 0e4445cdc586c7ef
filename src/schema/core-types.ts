import { readFileSync } from 'node:fs';
import type { JSONSchemaProps } from './json-schema.js';
// Not used at run time: the import makes tsc copy the data file next to the compiled module.
import type {} from './core-types/k8s-1.36.json';

export type { JSONSchemaProps } from './json-schema.js';

/**
 * The schemas controller-gen emits for the Kubernetes core types that `kop/api` exports,
 * stored per Kubernetes version by hack/gen-core-types.ts (which runs controller-gen over
 * the Go stub in hack/core-types). Stored compressed: a subtree equal to another core
 * type's schema apart from its description is `{"x-kop-ref": <type>, description?}`.
 */
interface CoreTypesData {
  kubernetesVersion: string;
  controllerGenVersion: string;
  schemas: Record<string, StoredSchema>;
}

type StoredSchema = Record<string, unknown>;

const DATA_FILE = new URL('./core-types/k8s-1.36.json', import.meta.url);
const REF = 'x-kop-ref';

let data: CoreTypesData | undefined;
const expanded = new Map<string, JSONSchemaProps>();

function load(): CoreTypesData {
  data ??= JSON.parse(readFileSync(DATA_FILE, 'utf8')) as CoreTypesData;
  return data;
}

/**
 * The schema controller-gen gives a field of this `kop/api` type, e.g. `PodTemplateSpec`,
 * `Quantity`, `int32`; `undefined` for a name kop/api does not export. The description is
 * the type's own; controller-gen replaces it with the field's doc comment when there is one.
 * Every call returns a fresh copy the caller may change.
 */
export function coreTypeSchema(name: string): JSONSchemaProps | undefined {
  const schemas = load().schemas;
  if (!Object.hasOwn(schemas, name)) return undefined;
  return structuredClone(expand(schemas, name));
}

/** Names `coreTypeSchema` knows, sorted. */
export function coreTypeNames(): string[] {
  return Object.keys(load().schemas).sort();
}

/** True when `name` is a type `kop/api` exports that has a controller-gen schema. */
export function isCoreTypeName(name: string): boolean {
  return Object.hasOwn(load().schemas, name);
}

/** The Kubernetes and controller-gen versions the stored schemas come from. */
export function coreTypesSource(): { kubernetesVersion: string; controllerGenVersion: string } {
  const { kubernetesVersion, controllerGenVersion } = load();
  return { kubernetesVersion, controllerGenVersion };
}

const SCHEMA_KEYS = new Set(['items', 'additionalProperties', 'not']);
const SCHEMA_LIST_KEYS = new Set(['allOf', 'anyOf', 'oneOf']);

function expand(schemas: Record<string, StoredSchema>, name: string): JSONSchemaProps {
  const cached = expanded.get(name);
  if (cached) return cached;
  const result = expandNode(schemas, schemas[name]!) as JSONSchemaProps;
  expanded.set(name, result);
  return result;
}

function expandNode(schemas: Record<string, StoredSchema>, node: StoredSchema): StoredSchema {
  const ref = node[REF];
  if (typeof ref === 'string') {
    const { description: _ignored, ...base } = expand(schemas, ref) as StoredSchema;
    return sortKeys(node.description === undefined ? base : { ...base, description: node.description });
  }
  const out: StoredSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandNode(schemas, v as StoredSchema)]));
    } else if (SCHEMA_KEYS.has(key) && isObject(value)) {
      out[key] = expandNode(schemas, value);
    } else if (SCHEMA_LIST_KEYS.has(key) && Array.isArray(value)) {
      out[key] = value.map((item: StoredSchema) => expandNode(schemas, item));
    } else {
      out[key] = value;
    }
  }
  return out;
}

function isObject(value: unknown): value is StoredSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** controller-gen writes keys in sorted order; expanded references keep that order. */
function sortKeys(node: StoredSchema): StoredSchema {
  return Object.fromEntries(
    Object.keys(node)
      .sort()
      .map((key) => [key, node[key]]),
  );
}
