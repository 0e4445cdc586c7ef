import type { RestClient } from '../runtime/client/index.js';
import { isNotFound } from '../runtime/index.js';
import { ManifestOperationError } from './apply-manifests.js';
import type { ManifestObject } from './render-kustomization.js';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
/** Where `kop migrate storage` keeps an unfinished migration's progress on the CRD (the runtime's annotation). */
const MIGRATION_ANNOTATION = 'kop.dev/storage-migration';

interface ClusterCrd {
  metadata: { annotations?: Record<string, string> };
  spec: { group: string; names: { plural: string; kind: string }; versions: Array<{ name: string; storage: boolean }> };
  status?: { storedVersions?: string[] };
}

/**
 * Refuses to install CRDs that drop a version the cluster still stores objects at (a version
 * removed from the types while in the CRD's `status.storedVersions`). The apiserver refuses such
 * an update too, but in words about storedVersions that neither count the objects at stake nor
 * name the way out: `kop migrate storage`, which rewrites them and prunes the version.
 */
export async function refuseDroppedStoredVersions(objects: readonly ManifestObject[], rest: RestClient): Promise<void> {
  const problems: string[] = [];
  for (const object of objects) {
    if (object.kind !== 'CustomResourceDefinition' || !object.apiVersion.startsWith('apiextensions.k8s.io/')) continue;
    const name = (object.metadata as { name?: string } | undefined)?.name;
    if (!name) continue;
    const wanted = new Set(
      ((object.spec as { versions?: Array<{ name?: string }> } | undefined)?.versions ?? []).map((v) => v.name),
    );
    let current: ClusterCrd;
    try {
      current = await rest.get<ClusterCrd>(`${CRD_PATH}/${encodeURIComponent(name)}`);
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    const dropped = (current.status?.storedVersions ?? []).filter((v) => !wanted.has(v));
    if (dropped.length === 0) continue;
    problems.push(`${name}: ${dropped.join(', ')} ${await storedObjects(rest, current, dropped)}`);
  }
  if (problems.length === 0) return;
  throw new ManifestOperationError(
    `refusing to remove ${problems.length === 1 ? 'a version' : 'versions'} the cluster still stores objects at:\n  ${problems.join('\n  ')}`,
    `run \`kop migrate storage\` (it rewrites them at the storage version and prunes the old versions), then install again`,
  );
}

/** The words for how many objects may still be stored at the dropped versions. */
async function storedObjects(rest: RestClient, crd: ClusterCrd, dropped: readonly string[]): Promise<string> {
  const be = dropped.length === 1 ? 'is' : 'are';
  const stored = `${be} still in status.storedVersions`;
  const saved = crd.metadata.annotations?.[MIGRATION_ANNOTATION];
  if (saved !== undefined) {
    try {
      const failed = (JSON.parse(saved) as { failedCount?: unknown }).failedCount;
      if (typeof failed === 'number' && failed > 0)
        return `${stored}: ${failed} ${crd.spec.names.kind} object${failed === 1 ? '' : 's'} could not be rewritten by the last migration`;
    } catch {
      // Not kop's progress: count the objects instead.
    }
  }
  // Which objects are at which version only etcd knows; any object may be at an old one until a migration.
  const version = crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name;
  const list = await rest.request<{ items: unknown[]; metadata: { remainingItemCount?: number; continue?: string } }>({
    method: 'GET',
    path: `/apis/${crd.spec.group}/${version}/${crd.spec.names.plural}`,
    query: { limit: 1 },
    accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
  });
  const count = list.items.length + (list.metadata.remainingItemCount ?? 0);
  const more = list.metadata.continue && list.metadata.remainingItemCount === undefined ? ' or more' : '';
  return `${stored}: ${count}${more} ${crd.spec.names.kind} object${count === 1 && !more ? '' : 's'} may be stored at ${dropped.join(' or ')} and would no longer be readable`;
}
