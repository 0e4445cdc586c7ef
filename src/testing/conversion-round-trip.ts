/**
 * Round-trip tests of a conversion, without a control plane: arbitrary valid objects of the spoke
 * and of the hub, generated from the CRD's own schema (schema-arbitrary.ts), go spoke → hub →
 * spoke and hub → spoke → hub through the runtime's conversion (what the manager's /convert
 * runs, metadata handling included) and must come back as they were. Objects go through JSON
 * between steps, as on the wire. A failure names the direction, the path that was lost or
 * changed, and the smallest object fast-check found that shows it.
 */
import fc from 'fast-check';
import type { KubernetesObject } from '../runtime/index.js';
import { apiVersionOf, type ResourceType } from '../runtime/internal.js';
import { ConversionRegistry, type SpokeConversion } from '../runtime/webhook/index.js';
import { readCRDs, type CRDSource } from './crds.js';
import {
  arbitraryCustomResource,
  type CrdVersionSource,
  type OpenApiSchema,
  type SchemaArbitraryOptions,
} from './schema-arbitrary.js';

/** What {@link checkConversionRoundTrip} tests. */
export interface ConversionRoundTripOptions<Hub extends KubernetesObject, Spoke extends KubernetesObject> {
  /** The kind's CRD: a file or folder of CRDs (the kind's is picked), or the object. */
  crd: CRDSource;
  /** The hub's and the spoke's descriptors (from their `.client.ts`). */
  hub: ResourceType<Hub>;
  spoke: ResourceType<Spoke>;
  /** The spoke's conversion, as registered with `manager.conversion(hub).spoke(spoke, conversion)`. */
  conversion: SpokeConversion<Hub, Spoke>;
  /** Objects per direction, whole and pruned alike; default 100. */
  runs?: number;
  /** fast-check's seed; the same seed generates the same objects. Default 42. */
  seed?: number;
  /** Bounds of the generated objects (depth, list and string sizes). */
  bounds?: Omit<SchemaArbitraryOptions, 'pruned'>;
}

/** How many objects went round, per direction. */
export interface ConversionRoundTripReport {
  spokeToHub: number;
  hubToSpoke: number;
}

/** A conversion that did not give an object back as it was. */
export class ConversionRoundTripError extends Error {
  constructor(
    message: string,
    /** The generated object that failed (the smallest fast-check found). */
    readonly object: unknown,
    /** Where the object came back different (`spec.size`), when it came back. */
    readonly path: string | undefined,
  ) {
    super(message);
    this.name = 'ConversionRoundTripError';
  }
}

/**
 * Checks spoke → hub → spoke and hub → spoke → hub on `runs` generated objects each way (a
 * quarter of them pruned, with fields missing anywhere, as the apiserver sends for server-side
 * apply); throws a {@link ConversionRoundTripError} naming the first loss.
 */
export async function checkConversionRoundTrip<Hub extends KubernetesObject, Spoke extends KubernetesObject>(
  options: ConversionRoundTripOptions<Hub, Spoke>,
): Promise<ConversionRoundTripReport> {
  const { hub, spoke } = options;
  if (hub.group !== spoke.group || hub.kind !== spoke.kind)
    throw new Error(`${spoke.kind}.${spoke.group} is not a version of ${hub.kind}.${hub.group}`);
  const crd = findCrd(options.crd, hub);
  const registry = new ConversionRegistry();
  registry.register(
    hub,
    new Map([
      [spoke as ResourceType, options.conversion as unknown as SpokeConversion<KubernetesObject, KubernetesObject>],
    ]),
  );
  const runs = options.runs ?? 100;
  const seed = options.seed ?? 42;
  const objectsOf = (version: string) =>
    fc.oneof(
      { weight: 3, arbitrary: arbitraryCustomResource(crd, version, options.bounds) },
      { weight: 1, arbitrary: arbitraryCustomResource(crd, version, { ...options.bounds, pruned: true }) },
    );
  for (const [from, via] of [
    [spoke, hub],
    [hub, spoke],
  ] as const) {
    const there = apiVersionOf(via);
    const back = apiVersionOf(from);
    const direction = `${hub.kind} ${from.version} → ${via.version} → ${from.version}`;
    const property = fc.asyncProperty(objectsOf(from.version), async (object) => {
      const converted = prune(
        await step(registry, object, there, `${from.version} → ${via.version}`),
        schemaOf(crd, via.version),
      );
      const returned = prune(
        await step(registry, converted, back, `${via.version} → ${from.version}`),
        schemaOf(crd, from.version),
      );
      // The runtime answers an object that had no metadata with an empty one; the apiserver does not mind.
      if (!('metadata' in object) && isEmptyObject(returned.metadata)) delete returned.metadata;
      const difference = firstDifference(object, returned, '');
      if (difference !== undefined) throw new Loss(difference, converted);
    });
    const details = await fc.check(property, { numRuns: runs, seed });
    if (details.failed) {
      const object = details.counterexample?.[0];
      const error = details.errorInstance;
      const json = (value: unknown) => JSON.stringify(value, null, 2);
      const replay = `seed ${seed}, ${details.numRuns} of ${runs} objects tried, shrunk ${details.numShrinks} times`;
      if (error instanceof Loss) {
        throw new ConversionRoundTripError(
          `${direction}: ${error.difference.description}\n` +
            `object (${from.version}):\n${json(object)}\n` +
            `as ${via.version}:\n${json(error.converted)}\n` +
            `(${replay}) — keep what ${via.version} has no field for in an annotation, and take it back from there`,
          object,
          error.difference.path,
        );
      }
      throw new ConversionRoundTripError(
        `${direction}: ${error instanceof Error ? error.message : String(error)}\nobject (${from.version}):\n${json(object)}\n(${replay})`,
        object,
        undefined,
      );
    }
  }
  return { spokeToHub: runs, hubToSpoke: runs };
}

function findCrd(source: CRDSource, hub: ResourceType): CrdVersionSource {
  const crds = readCRDs([source]);
  const crd = crds.find((c) => c.spec.group === hub.group && c.spec.names.kind === hub.kind);
  if (crd === undefined)
    throw new Error(
      `no CRD of ${hub.kind}.${hub.group} in ${typeof source === 'string' ? source : 'the CRD given'} (run \`npm run generate\`?)`,
    );
  return crd as unknown as CrdVersionSource;
}

function schemaOf(crd: CrdVersionSource, version: string): OpenApiSchema | undefined {
  return crd.spec.versions.find((v) => v.name === version)?.schema?.openAPIV3Schema;
}

/**
 * What the apiserver keeps of a converted object: the fields its version's schema declares
 * (unknown fields are pruned, unless x-kubernetes-preserve-unknown-fields), metadata as it is. A
 * field the other version has no place for is lost here, as in a cluster, unless the conversion
 * kept it (in an annotation).
 */
function prune<T>(value: T, schema: OpenApiSchema | undefined, root = true): T {
  if (schema === undefined || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return (value as unknown[]).map((item) => prune(item, schema.items, false)) as T;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.properties === undefined) return value;
  const object = value as Record<string, unknown>;
  const pruned: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(object)) {
    if (root && ['apiVersion', 'kind', 'metadata'].includes(key)) pruned[key] = field;
    else if (schema.properties?.[key] !== undefined) pruned[key] = prune(field, schema.properties[key], false);
    else if (typeof schema.additionalProperties === 'object')
      pruned[key] = prune(field, schema.additionalProperties, false);
    else if (schema.additionalProperties === true || schema['x-kubernetes-preserve-unknown-fields'] === true)
      pruned[key] = field;
  }
  return pruned as T;
}

/** One conversion, then through JSON as the answer goes over the wire. */
async function step(
  registry: ConversionRegistry,
  object: Record<string, unknown>,
  apiVersion: string,
  what: string,
): Promise<Record<string, unknown>> {
  let converted: KubernetesObject;
  try {
    converted = await registry.convert(structuredClone(object) as KubernetesObject, apiVersion);
  } catch (error) {
    throw new Error(`converting ${what} threw: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return JSON.parse(JSON.stringify(converted)) as Record<string, unknown>;
}

class Loss extends Error {
  constructor(
    readonly difference: Difference,
    readonly converted: unknown,
  ) {
    super(difference.description);
  }
}

interface Difference {
  path: string;
  description: string;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : undefined;
  if (name === undefined) return `${path}[${JSON.stringify(key)}]`;
  return path === '' ? name : `${path}.${name}`;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The first place (depth first, in key order) where `after` is not `before`. */
export function firstDifference(before: unknown, after: unknown, path: string): Difference | undefined {
  const at = path === '' ? 'the object' : path;
  if (Object.is(before, after)) return undefined;
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.min(before.length, after.length); i++) {
      const found = firstDifference(before[i], after[i], child(path, i));
      if (found) return found;
    }
    if (before.length !== after.length)
      return {
        path,
        description: `${at} had ${before.length} items and came back with ${after.length}`,
      };
    return undefined;
  }
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isRecord(before) && isRecord(after)) {
    for (const key of Object.keys(before)) {
      const where = child(path, key);
      if (!(key in after)) return { path: where, description: `${where} was lost: it was ${show(before[key])}` };
      const found = firstDifference(before[key], after[key], where);
      if (found) return found;
    }
    for (const key of Object.keys(after)) {
      const where = child(path, key);
      if (!(key in before)) return { path: where, description: `${where} was added: ${show(after[key])}` };
    }
    return undefined;
  }
  if (after === undefined) return { path, description: `${at} was lost: it was ${show(before)}` };
  return { path, description: `${at} changed: it was ${show(before)} and came back ${show(after)}` };
}

/**
 * One whole, valid object of `type`'s version, generated from its CRD's schema (the same
 * generator as checkConversionRoundTrip's); the same seed gives the same object. For tests that
 * need an object the apiserver admits without writing one by hand; CEL rules are not evaluated.
 */
export function sampleCustomResource<T extends KubernetesObject>(
  type: ResourceType<T>,
  options: { crd: CRDSource; seed?: number; bounds?: Omit<SchemaArbitraryOptions, 'pruned'> },
): T {
  const crd = findCrd(options.crd, type);
  const [object] = fc.sample(arbitraryCustomResource(crd, type.version, options.bounds), {
    numRuns: 1,
    seed: options.seed ?? 42,
  });
  // The CRD is the one kop generated from T, so an object its schema admits is a T.
  return object as T;
}
