/**
 * Stage 5 of `kop import crd`: the types files are run through kop's own schema pipeline in
 * memory, before anything is written, and the CRD it gives must be the one imported: exactly
 * for an owned import (what `kop generate manifests` will write), descriptions aside for an
 * external one (whose CRD kop never writes). A difference stops the import naming its path, so
 * a types file that would not give the CRD back is never written.
 */
import * as path from 'node:path';
import { KopError } from '../base/index.js';
import {
  buildCrd,
  type CustomResourceDefinition,
  type JSONSchemaProps,
  loadApiModel,
  OpenApiConverter,
} from '../schema/index.js';
import { canonicalJson } from './canonical-json.js';

export interface RoundTripInput {
  /** Absolute project root. */
  root: string;
  /** Project-relative path -> text: the new files and the other API files of their folders. */
  files: ReadonlyMap<string, string>;
  expected: CustomResourceDefinition;
  /** Compare descriptions too (an owned import). */
  exact: boolean;
  allowDangerousTypes: boolean;
}

/** The CRD kop generates from the files; throws a KopError naming the first difference from `expected`. */
export async function verifyRoundTrip(input: RoundTripInput): Promise<CustomResourceDefinition> {
  const sources = new Map([...input.files].map(([file, text]) => [path.join(input.root, file), text] as const));
  const model = await loadApiModel(input.root, { files: [...sources.keys()], sources });
  const { group, names } = input.expected.spec;
  const kind = model.kinds.find((k) => k.group === group && k.kind === names.kind);
  if (!kind)
    throw new KopError(`kop found no kind ${names.kind} of group ${group} in the types it wrote (a bug in kop import)`);
  const options = { allowDangerousTypes: input.allowDangerousTypes };
  const actual = buildCrd(kind, new OpenApiConverter(model, options), options);
  const want = input.exact ? input.expected : shapeOnly(input.expected);
  const got = input.exact ? actual : shapeOnly(actual);
  // Compared in place first (most imports are equal); the copies that name a difference only when not.
  const difference = sameCrd(want, got) ? undefined : firstDifference(sortRequired(want), sortRequired(got), '');
  if (difference !== undefined) {
    throw new KopError(
      `the types kop would write do not give back ${input.expected.metadata.name}: ${difference}`,
      'this is a limit of kop import: pass --raw-schema to keep such subtrees verbatim, or report the CRD to kop',
    );
  }
  return actual;
}

/**
 * Deep equality of two JSON values, object keys in any order, with `required` lists compared as the
 * sets they are (kop, as controller-gen, writes them sorted, whatever order the CRD had).
 */
export function sameCrd(a: unknown, b: unknown, key?: string): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    if (key === 'required' && a.every((v) => typeof v === 'string')) {
      const set = new Set(b);
      return a.every((v) => set.has(v));
    }
    return a.every((v, i) => sameCrd(v, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = Object.keys(ra).filter((k) => ra[k] !== undefined);
  if (keys.length !== Object.keys(rb).filter((k) => rb[k] !== undefined).length) return false;
  return keys.every((k) => sameCrd(ra[k], rb[k], k));
}

/** A copy whose schemas list `required` sorted. */
function sortRequired(crd: CustomResourceDefinition): CustomResourceDefinition {
  return mapSchemas(crd, (node) => (node.required ? { ...node, required: [...node.required].sort() } : node));
}

/** A copy of the CRD with `change` applied to every schema node, children first. */
function mapSchemas(
  crd: CustomResourceDefinition,
  change: (node: JSONSchemaProps) => JSONSchemaProps,
): CustomResourceDefinition {
  const walk = (node: JSONSchemaProps): JSONSchemaProps => {
    const out: JSONSchemaProps = { ...node };
    if (node.properties)
      out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, walk(v)]));
    if (node.items) out.items = walk(node.items);
    if (typeof node.additionalProperties === 'object') out.additionalProperties = walk(node.additionalProperties);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) if (node[key]) out[key] = node[key]!.map(walk);
    if (node.not) out.not = walk(node.not);
    return change(out);
  };
  return {
    ...crd,
    spec: {
      ...crd.spec,
      versions: crd.spec.versions.map((v) => ({ ...v, schema: { openAPIV3Schema: walk(v.schema.openAPIV3Schema) } })),
    },
  };
}

/**
 * What an external import must keep: the schemas without descriptions and without the root's
 * apiVersion, kind and metadata (which the apiserver defines, and other generators write their own way).
 */
function shapeOnly(crd: CustomResourceDefinition): CustomResourceDefinition {
  const stripped = mapSchemas(crd, ({ description: _dropped, ...rest }) => rest);
  return {
    ...stripped,
    spec: {
      ...stripped.spec,
      versions: stripped.spec.versions.map((v) => {
        const root = v.schema.openAPIV3Schema;
        const { apiVersion: _a, kind: _k, metadata: _m, ...properties } = root.properties ?? {};
        return { ...v, schema: { openAPIV3Schema: { ...root, properties } } };
      }),
    },
  };
}

/** The first place two JSON values differ, as `path: want X, kop writes Y`; undefined when equal. */
export function firstDifference(want: unknown, got: unknown, at: string): string | undefined {
  if (canonicalJson(want) === canonicalJson(got)) return undefined;
  const shown = (value: unknown) => {
    const text = value === undefined ? 'nothing' : JSON.stringify(value);
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
  };
  if (isRecord(want) && isRecord(got)) {
    for (const key of [...new Set([...Object.keys(want), ...Object.keys(got)])].sort()) {
      const child =
        key === 'versions' && Array.isArray(want[key])
          ? undefined
          : firstDifference(want[key], got[key], `${at}.${key}`);
      if (key === 'versions' && Array.isArray(want[key]) && Array.isArray(got[key])) {
        const byName = (list: unknown[]) => new Map(list.map((v) => [String((v as { name?: unknown }).name), v]));
        const w = byName(want[key] as unknown[]);
        const g = byName(got[key] as unknown[]);
        for (const name of new Set([...w.keys(), ...g.keys()])) {
          const versionDifference = firstDifference(w.get(name), g.get(name), `${at}.versions[${name}]`);
          if (versionDifference) return versionDifference;
        }
        const order = firstDifference(want[key], got[key], `${at}.versions`);
        if (order) return `${at}.versions: kop writes the versions sorted by name`;
        continue;
      }
      if (child) return child;
    }
  }
  if (Array.isArray(want) && Array.isArray(got) && want.length === got.length) {
    for (let i = 0; i < want.length; i++) {
      const child = firstDifference(want[i], got[i], `${at}[${i}]`);
      if (child) return child;
    }
  }
  return `${at || '.'}: the CRD has ${shown(want)}, kop would write ${shown(got)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
