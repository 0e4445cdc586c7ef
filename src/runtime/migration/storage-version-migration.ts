import type { RestClient } from '../client/rest/rest-client.js';
import { ApiError, isGone, isNotFound } from '../client/errors/api-error.js';
import { retryOnConflict } from '../client/retry/retry-on-conflict.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';

/**
 * The CRD annotation that holds an unfinished migration's progress. On the CRD, not in a local
 * file: the progress belongs to the cluster, so a re-run from another machine or another admin
 * resumes it, `kubectl get crd -o yaml` shows it, and it goes away with the CRD. A finished
 * migration removes it.
 */
export const MIGRATION_ANNOTATION = 'kop.dev/storage-migration';

/** Failed objects kept in the annotation; past this only their count is, and a re-run walks every object again. */
const MAX_KEPT_FAILURES = 100;

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const MERGE_PATCH = 'application/merge-patch+json';
/** Answers to the rewrites as metadata only: the migration reads their resourceVersion, not their bodies. */
const OBJECT_METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** Options of {@link migrateStorageVersion}. */
export interface StorageMigrationOptions {
  /** Objects listed per page; progress is saved after each page. Default 500. */
  pageSize?: number;
  /**
   * Objects rewritten at once. Default 1: on a small control plane the apiserver is the
   * bottleneck and more at once was slower (bench/storage-migration.mjs); a large cluster may
   * gain from a few.
   */
  concurrency?: number;
  /** Forget the progress a previous run saved and walk every object again. */
  restart?: boolean;
  /**
   * Called after each page (and once at the start) with the counts so far; the walk waits for a
   * promise it returns (to pace the migration, or to record the progress elsewhere).
   */
  onProgress?: (progress: StorageMigrationProgress) => void | Promise<void>;
  /** Told why saved progress is resumed, discarded or restarted; default silent. */
  logger?: Logger;
  /** Stops the walk; the progress of the pages done stays saved. */
  signal?: AbortSignal;
}

/** How far a migration is. */
export interface StorageMigrationProgress {
  /** The CRD's name, e.g. `widgets.example.com`. */
  crd: string;
  /** The version every object is being written at. */
  storageVersion: string;
  /** Objects the apiserver wrote anew (they were stored at another version or encoding). */
  rewritten: number;
  /** Objects the apiserver found already stored at the storage version (no write). */
  unchanged: number;
  /** Objects deleted between the list and their rewrite. */
  gone: number;
  /** Objects that could not be rewritten; a re-run tries them again. */
  failed: number;
  /** Objects of the kind when the walk began (the apiserver's estimate), if it said. */
  total?: number;
  /** `namespace/name` (or `name`) of the last object of the last page done. */
  lastObject?: string;
  /** True when this run went on from progress a killed or refused run saved. */
  resumed: boolean;
}

/** An object the apiserver would not rewrite, and what it said. */
export interface StorageMigrationFailure {
  namespace?: string;
  name: string;
  reason: string;
}

/** What {@link migrateStorageVersion} did. */
export interface StorageMigrationResult extends StorageMigrationProgress {
  /** The objects that could not be rewritten (at most 100 are named; `failed` counts them all). */
  failures: StorageMigrationFailure[];
  /** Versions removed from `status.storedVersions`; empty when nothing was or could be. */
  pruned: string[];
  /** `status.storedVersions` at the end. */
  storedVersions: string[];
  /** Why the old versions were not pruned, when some objects could not be rewritten. */
  refusal?: string;
}

/** The parts of a CRD this reads. */
interface Crd {
  metadata: { name: string; resourceVersion?: string; annotations?: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { plural: string; kind: string };
    versions: Array<{ name: string; storage: boolean }>;
  };
  status?: { storedVersions?: string[] };
}

/** What the annotation holds. */
interface SavedProgress {
  storageVersion: string;
  /** `status.storedVersions` when the migration began: a version stored since then means starting over. */
  storedVersions: string[];
  continue?: string;
  lastObject?: string;
  rewritten: number;
  unchanged: number;
  gone: number;
  failedCount: number;
  failures: StorageMigrationFailure[];
  total?: number;
}

/** An object as listed (the whole object), or as a saved failure names it (metadata only). */
interface MetadataItem {
  apiVersion?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

/**
 * Rewrites every object of a custom resource at the CRD's current storage version, then removes
 * the other versions from the CRD's `status.storedVersions`, after which a version no longer
 * stored can be dropped from the CRD (the Kubernetes docs' "upgrade existing objects to a new
 * stored version", done as kube-storage-version-migrator does it).
 *
 * Pages are listed at the storage version and each object is put back as listed, unchanged: the
 * apiserver writes it to etcd only when its encoding at the storage version differs from what
 * etcd holds, so objects stored at an old version are written anew and the others cost no write
 * (one request per object, against a GET and a PUT of a hand-written loop). After each page the
 * progress is saved on the CRD (annotation `kop.dev/storage-migration`),
 * so a killed run, run again, goes on from the last page done (the objects of the page cut short
 * are rewritten again, which is a no-op). Objects the apiserver refuses to rewrite (an admission
 * policy, a failing conversion webhook) are counted and named; while any remain the old versions
 * are not pruned and `refusal` says why. Nothing is lost either way: a rewrite changes no field.
 */
export async function migrateStorageVersion(
  rest: RestClient,
  crdName: string,
  options: StorageMigrationOptions = {},
): Promise<StorageMigrationResult> {
  const logger = options.logger ?? silentLogger;
  const signal = options.signal;
  const pageSize = options.pageSize ?? 500;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const crdPath = `${CRD_PATH}/${encodeURIComponent(crdName)}`;
  const crd = await rest.get<Crd>(crdPath, undefined, { signal });
  const storageVersion = crd.spec.versions.find((v) => v.storage)?.name;
  if (!storageVersion) throw new Error(`CustomResourceDefinition ${crdName} names no storage version`);
  const storedVersions = crd.status?.storedVersions ?? [];

  let saved = options.restart ? undefined : readSavedProgress(crd, logger);
  if (saved && saved.storageVersion !== storageVersion) {
    logger.info('saved progress was for another storage version; starting over', {
      crd: crdName,
      saved: saved.storageVersion,
      storageVersion,
    });
    saved = undefined;
  }
  const onlyStorage = storedVersions.length === 1 && storedVersions[0] === storageVersion;
  if (onlyStorage) {
    // Nothing else is stored; a run killed after pruning may have left its progress behind.
    if (crd.metadata.annotations?.[MIGRATION_ANNOTATION] !== undefined) await saveProgress(rest, crdPath, null, signal);
    return {
      crd: crdName,
      storageVersion,
      rewritten: 0,
      unchanged: 0,
      gone: 0,
      failed: 0,
      resumed: false,
      failures: [],
      pruned: [],
      storedVersions,
    };
  }

  const resumed = saved !== undefined;
  const state: SavedProgress = saved ?? {
    storageVersion,
    storedVersions,
    rewritten: 0,
    unchanged: 0,
    gone: 0,
    failedCount: 0,
    failures: [],
  };
  if (resumed) logger.info('resuming a migration', { crd: crdName, lastObject: state.lastObject });
  const resourcePath = `/apis/${crd.spec.group}/${storageVersion}`;
  const plural = crd.spec.names.plural;
  const namespaced = crd.spec.scope === 'Namespaced';
  const objectPath = (item: MetadataItem['metadata']): string =>
    namespaced && item.namespace
      ? `${resourcePath}/namespaces/${encodeURIComponent(item.namespace)}/${plural}/${encodeURIComponent(item.name)}`
      : `${resourcePath}/${plural}/${encodeURIComponent(item.name)}`;
  const progress = (): StorageMigrationProgress => ({
    crd: crdName,
    storageVersion,
    rewritten: state.rewritten,
    unchanged: state.unchanged,
    gone: state.gone,
    failed: state.failedCount,
    ...(state.total !== undefined ? { total: state.total } : {}),
    ...(state.lastObject !== undefined ? { lastObject: state.lastObject } : {}),
    resumed,
  });

  /**
   * Rewrites one object: a PUT of the object as listed, unchanged. A 409 means it was written
   * since the list; it is read again and put again (the write that beat us was at the storage
   * version too, so this one is then a no-op). Records what happened in `state`.
   */
  const rewrite = async (item: MetadataItem, failures: StorageMigrationFailure[]): Promise<void> => {
    const meta = item.metadata;
    try {
      const after = await retryOnConflict(
        async (attempt) =>
          rest.request<MetadataItem>({
            method: 'PUT',
            path: objectPath(meta),
            body: attempt === 0 && item.apiVersion ? item : await rest.get(objectPath(meta), undefined, { signal }),
            accept: OBJECT_METADATA_ONLY,
            signal,
          }),
        { signal },
      );
      if (meta.resourceVersion !== undefined && after.metadata.resourceVersion === meta.resourceVersion)
        state.unchanged++;
      else state.rewritten++;
    } catch (err) {
      if (isNotFound(err)) state.gone++;
      else if (err instanceof ApiError) {
        // The apiserver's refusal of this object: count it, name it, go on with the others.
        failures.push({
          ...(meta.namespace ? { namespace: meta.namespace } : {}),
          name: meta.name,
          reason: err.status.message ?? err.message,
        });
      } else throw err;
    }
  };
  const rewriteAll = async (items: MetadataItem[]): Promise<StorageMigrationFailure[]> => {
    const failures: StorageMigrationFailure[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < items.length) await rewrite(items[next++]!, failures);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
    return failures;
  };

  // Objects a refused run could not rewrite are tried first; the walk goes on after its last page.
  if (resumed && state.failedCount > 0) {
    if (state.failedCount > state.failures.length) {
      // Not every failed object was named: only a walk of every object finds them again.
      logger.info('more objects failed than were saved by name; walking every object again', { crd: crdName });
      Object.assign(state, { continue: undefined, lastObject: undefined, failedCount: 0, failures: [] });
    } else {
      const retried = await rewriteAll(
        state.failures.map((f) => ({ metadata: { name: f.name, namespace: f.namespace } })),
      );
      state.failures = retried;
      state.failedCount = retried.length;
    }
  }
  const walkDone = resumed && state.continue === undefined && state.lastObject !== undefined;
  if (!resumed) await saveProgress(rest, crdPath, state, signal);
  await options.onProgress?.(progress());

  let token = state.continue;
  let more = !walkDone;
  while (more) {
    signal?.throwIfAborted();
    let page: { metadata: { continue?: string; remainingItemCount?: number }; items: MetadataItem[] };
    try {
      page = await rest.request({
        method: 'GET',
        path: `${resourcePath}/${plural}`,
        query: { limit: pageSize, continue: token },
        signal,
      });
    } catch (err) {
      if (!(token && isGone(err))) throw err;
      // The token outlived etcd's compaction. The apiserver offers one that goes on from the same
      // key at the current revision: what changed meanwhile was written at the storage version.
      const fresh = (err.status.metadata as { continue?: string } | undefined)?.continue;
      logger.info(
        fresh ? 'continue token expired; going on from the same object' : 'continue token expired; starting over',
        { crd: crdName },
      );
      token = fresh || undefined;
      continue;
    }
    if (token === undefined) state.total = page.items.length + (page.metadata.remainingItemCount ?? 0);
    const failures = await rewriteAll(page.items);
    state.failedCount += failures.length;
    state.failures.push(...failures.slice(0, Math.max(0, MAX_KEPT_FAILURES - state.failures.length)));
    token = page.metadata.continue || undefined;
    more = token !== undefined;
    const last = page.items.at(-1)?.metadata;
    if (last) state.lastObject = last.namespace ? `${last.namespace}/${last.name}` : last.name;
    // The end of the walk is saved too (no token, a last object), so a run killed before the
    // pruning does not walk again.
    else state.lastObject ??= '';
    state.continue = token;
    await saveProgress(rest, crdPath, state, signal);
    await options.onProgress?.(progress());
  }

  const result = (pruned: string[], finalStored: string[], refusal?: string): StorageMigrationResult => ({
    ...progress(),
    failures: state.failures,
    pruned,
    storedVersions: finalStored,
    ...(refusal ? { refusal } : {}),
  });
  if (state.failedCount > 0) {
    return result(
      [],
      storedVersions,
      `${state.failedCount} object${state.failedCount === 1 ? '' : 's'} of ${crdName} could not be rewritten at ` +
        `${storageVersion}, so ${storedVersions.filter((v) => v !== storageVersion).join(', ')} may still be stored ` +
        `and stay in status.storedVersions`,
    );
  }

  // Every object is at the storage version: keep only it in storedVersions, unless the CRD moved meanwhile.
  const pruned = await retryOnConflict(
    async () => {
      const now = await rest.get<Crd>(crdPath, undefined, { signal });
      const nowStorage = now.spec.versions.find((v) => v.storage)?.name;
      const nowStored = now.status?.storedVersions ?? [];
      const added = nowStored.filter((v) => v !== storageVersion && !state.storedVersions.includes(v));
      if (nowStorage !== storageVersion || added.length > 0) {
        // Objects may have been written at another version meanwhile: this walk proves nothing.
        await saveProgress(rest, crdPath, null, signal);
        throw new Error(
          nowStorage !== storageVersion
            ? `the storage version of ${crdName} changed from ${storageVersion} to ${nowStorage ?? 'none'} during the migration; run it again`
            : `${added.join(', ')} was stored by ${crdName} during the migration; run it again`,
        );
      }
      await rest.patch(
        `${crdPath}/status`,
        { metadata: { resourceVersion: now.metadata.resourceVersion }, status: { storedVersions: [storageVersion] } },
        MERGE_PATCH,
        undefined,
        { signal },
      );
      return nowStored.filter((v) => v !== storageVersion);
    },
    { signal },
  );
  await saveProgress(rest, crdPath, null, signal);
  return result(pruned, [storageVersion]);
}

function readSavedProgress(crd: Crd, logger: Logger): SavedProgress | undefined {
  const text = crd.metadata.annotations?.[MIGRATION_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as SavedProgress;
    if (typeof value.storageVersion === 'string' && Array.isArray(value.storedVersions)) {
      value.failures = Array.isArray(value.failures) ? value.failures : [];
      return value;
    }
  } catch {
    // Edited by hand or by something else: starting over loses nothing, a rewrite is idempotent.
  }
  logger.warn(`the ${MIGRATION_ANNOTATION} annotation is not kop's progress; starting over`, {
    crd: crd.metadata.name,
  });
  return undefined;
}

/** Writes the progress to the CRD's annotation, or removes it (`null`). */
async function saveProgress(
  rest: RestClient,
  crdPath: string,
  state: SavedProgress | null,
  signal: AbortSignal | undefined,
): Promise<void> {
  await rest.patch(
    crdPath,
    { metadata: { annotations: { [MIGRATION_ANNOTATION]: state && JSON.stringify(state) } } },
    MERGE_PATCH,
    undefined,
    { signal },
  );
}
