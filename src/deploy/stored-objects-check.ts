import type { Output } from '../base/index.js';
import type { RestClient } from '../runtime/client/index.js';
import { isNotFound } from '../runtime/index.js';
import { type JSONSchemaProps, firstSchemaViolation } from '../schema/index.js';
import type { ManifestObject } from './render-kustomization.js';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
/** Objects read per request, and at most this many pages per version: a check, not a migration. */
const PAGE_SIZE = 500;
const MAX_PAGES = 20;

interface CrdVersion {
  name: string;
  served?: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
}

interface ClusterCrd {
  spec: { group: string; scope?: string; names: { plural: string; kind: string }; versions: CrdVersion[] };
}

interface StoredObject {
  metadata?: { name?: string; namespace?: string };
}

/** What one served version's objects make of its new schema. */
export interface RejectedObjects {
  crd: string;
  version: string;
  kind: string;
  /** Objects the new schema would refuse, of `checked` read. */
  rejected: number;
  checked: number;
  /** True when there were more objects than the check reads. */
  partial: boolean;
  /** The first refused object: `namespace/name`, the field and why. */
  example: string;
}

/**
 * The served versions whose objects in the cluster the CRDs about to be applied would refuse: for
 * each CRD the cluster has, each version served before and after, the objects are read through
 * the apiserver at that version and checked against the new schema of that version (type,
 * required, enum, bounds, pattern: schema/validate-object.ts). Such objects stay stored and
 * readable, but any write to them is refused until they are fixed, which a reconciler's status
 * update finds out the hard way. Reads at most 10,000 objects per version.
 */
export async function findRejectedStoredObjects(
  objects: readonly ManifestObject[],
  rest: RestClient,
): Promise<RejectedObjects[]> {
  const found: RejectedObjects[] = [];
  for (const object of objects) {
    if (object.kind !== 'CustomResourceDefinition' || !object.apiVersion.startsWith('apiextensions.k8s.io/')) continue;
    const name = (object.metadata as { name?: string } | undefined)?.name;
    if (!name) continue;
    let current: ClusterCrd;
    try {
      current = await rest.get<ClusterCrd>(`${CRD_PATH}/${encodeURIComponent(name)}`);
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    const servedNow = new Set(current.spec.versions.filter((v) => v.served !== false).map((v) => v.name));
    const wanted = (object.spec as { versions?: CrdVersion[] } | undefined)?.versions ?? [];
    for (const version of wanted) {
      const schema = version.schema?.openAPIV3Schema;
      if (version.served === false || !servedNow.has(version.name) || schema === undefined) continue;
      const result = await checkVersion(rest, current, version.name, schema);
      if (result.rejected > 0)
        found.push({ crd: name, version: version.name, kind: current.spec.names.kind, ...result });
    }
  }
  return found;
}

async function checkVersion(
  rest: RestClient,
  crd: ClusterCrd,
  version: string,
  schema: JSONSchemaProps,
): Promise<Omit<RejectedObjects, 'crd' | 'version' | 'kind'>> {
  let rejected = 0;
  let checked = 0;
  let example = '';
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await rest.request<{ items: StoredObject[]; metadata: { continue?: string } }>({
      method: 'GET',
      path: `/apis/${crd.spec.group}/${version}/${crd.spec.names.plural}`,
      query: { limit: PAGE_SIZE, ...(token ? { continue: token } : {}) },
    });
    for (const item of list.items) {
      checked++;
      const violation = firstSchemaViolation(item, schema);
      if (violation === undefined) continue;
      rejected++;
      if (example === '') {
        const { namespace, name } = item.metadata ?? {};
        example = `${namespace ? `${namespace}/` : ''}${name ?? '?'}: ${violation.path} ${violation.message}`;
      }
    }
    token = list.metadata.continue || undefined;
    if (token === undefined) return { rejected, checked, partial: false, example };
  }
  return { rejected, checked, partial: true, example };
}

/** Warns, once per version, about the stored objects the new CRDs would refuse (before they are applied). */
export async function warnRejectedStoredObjects(
  objects: readonly ManifestObject[],
  rest: RestClient,
  out: Pick<Output, 'warn'>,
): Promise<RejectedObjects[]> {
  const found = await findRejectedStoredObjects(objects, rest);
  for (const f of found) out.warn(describeRejectedObjects(f));
  return found;
}

/** The warning for one version's refused objects: the version, the count, an example and what to do. */
export function describeRejectedObjects(f: RejectedObjects): string {
  return (
    `${f.crd}: the new schema of ${f.version} refuses ${f.rejected} of the ${f.checked}${f.partial ? ' (first)' : ''} ${f.kind} objects stored, e.g. ${f.example}. ` +
    'They stay stored and readable, but every update of them (a reconciler writing status too) will be refused until they are fixed; ' +
    `fix them first (kubectl edit ${f.crd.split('.')[0]}.${f.version}.${f.crd.slice(f.crd.indexOf('.') + 1)} <name>), or loosen the schema (e.g. a default for a new required field).`
  );
}
