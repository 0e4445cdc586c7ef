import type { CallOptions } from '../rest/rest-client.js';
import type { KubernetesObject } from '../types/meta.js';
import type { ObjectMeta } from '../../../api/index.js';

/**
 * One kind's descriptor: where it lives in the API, how it is scoped, and (as a type parameter
 * only) the TypeScript type of its objects, so `client.get(redisClusterType, key)` returns a
 * `RedisCluster`. `kop generate` writes one per API kind into its `.client.ts`; kop/runtime/builtin
 * has one per built-in kind, named by group and version (`coreV1ConfigMapType`, `appsV1DeploymentType`, ...).
 */
export interface ResourceType<T extends KubernetesObject = KubernetesObject> {
  /** API group; '' for the core group (`/api/v1`). */
  readonly group: string;
  readonly version: string;
  /** Plural resource name used in paths, e.g. `deployments`. */
  readonly resource: string;
  readonly kind: string;
  /** Kind of a list of these objects; `<kind>List` when left out. */
  readonly listKind?: string;
  readonly namespaced: boolean;
  /**
   * Only the objects' metadata is read, listed, watched and cached (the apiserver answers as
   * `PartialObjectMetadata`); set by {@link metadataOnly}, never by hand.
   */
  readonly metadataOnly?: boolean;
  /** Never set: carries the object type `T` for inference. */
  readonly __object?: T;
}

/**
 * An object of which only the metadata was sent (the apiserver's meta.k8s.io/v1
 * `PartialObjectMetadata`): what reads through a {@link metadataOnly} descriptor return. Its
 * `kind` is `PartialObjectMetadata`, not the kind's own; the descriptor says which kind it is.
 */
export interface PartialObjectMetadata {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/**
 * The metadata-only view of a kind (controller-runtime's `PartialObjectMetadata` reads, kube-rs's
 * `metadata_watcher`): `client.get(metadataOnly(coreV1ConfigMapType), key)` and lists and watches
 * through it ask the apiserver for metadata only, so a kind a controller only needs to notice
 * costs a fraction of its full objects in memory. The manager caches it apart from the full kind
 * (both may be cached at once). Writes through it are limited to patch and delete: a create or
 * update of metadata alone would be refused or would erase the object's other fields.
 */
export function metadataOnly<T extends KubernetesObject>(type: ResourceType<T>): ResourceType<PartialObjectMetadata> {
  if (type.metadataOnly) return type as ResourceType<PartialObjectMetadata>;
  let view = metadataViews.get(type);
  if (!view) {
    const { __object: _ignored, ...rest } = type;
    void _ignored;
    view = { ...rest, metadataOnly: true };
    metadataViews.set(type, view);
  }
  return view;
}

/** One metadata-only view per descriptor, so calling metadataOnly in every reconcile makes nothing new. */
const metadataViews = new WeakMap<ResourceType, ResourceType<PartialObjectMetadata>>();

/** What `Accept` asks for metadata only, of one object (or watch events) and of a list. */
export const METADATA_ONLY_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
export const METADATA_ONLY_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/** The object type a descriptor stands for: `ObjectOf<typeof appsV1DeploymentType>` is `Deployment`. */
export type ObjectOf<R> = R extends ResourceType<infer T> ? T : never;

/** `group/version`, or just `version` for the core group: the objects' apiVersion. */
export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** A label or field selector: the raw string form, or a map of exact matches joined with commas. */
export type Selector = string | Readonly<Record<string, string>>;

/** Encodes a Selector for the query string. */
export function selectorString(selector: Selector | undefined): string | undefined {
  if (selector === undefined || typeof selector === 'string') return selector;
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/**
 * Encodes a field Selector for the query string. Values of a map are escaped (`\`, `,`, `=`
 * get a backslash) because field values, unlike label values, may contain them: a CRD's
 * selectable field can hold `a,b=c`, which unescaped would read as two requirements.
 */
export function fieldSelectorString(selector: Selector | undefined): string | undefined {
  if (selector === undefined || typeof selector === 'string') return selector;
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v.replace(/[\\,=]/g, (c) => `\\${c}`)}`)
    .join(',');
}

/** Options of `get`. */
export interface GetOptions extends CallOptions {
  /** '0' serves from the watch cache; unset reads the latest from etcd. */
  resourceVersion?: string;
}

/** Options of `list` and `listAll` (`listComplete` takes them without `continue`). */
export interface ListOptions extends CallOptions {
  labelSelector?: Selector;
  fieldSelector?: Selector;
  /** Page size; the response carries `metadata.continue` when more remain. */
  limit?: number;
  /** Token from the previous page's `metadata.continue`. */
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Server-side timeout of the list call. */
  timeoutSeconds?: number;
  /**
   * Leave `metadata.managedFields` out of the items, cut from the response's text before it is
   * parsed (a cache that drops them anyway saves parsing them); items where the field is not
   * found where the apiserver puts it keep it.
   */
  omitManagedFields?: boolean;
}

/** Options of `watch`. */
export interface WatchOptions {
  labelSelector?: Selector;
  fieldSelector?: Selector;
  /** Start after this resourceVersion (typically the list's `metadata.resourceVersion`). */
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Ask for BOOKMARK events that advance the resourceVersion without an object change. */
  allowWatchBookmarks?: boolean;
  /** Stream the current objects as ADDED first, then a BOOKMARK marking the end (watch-list). */
  sendInitialEvents?: boolean;
  /** The server ends the watch after this long (the iteration then ends normally). */
  timeoutSeconds?: number;
  /** Cancels the watch; the iteration ends without an error. */
  signal?: AbortSignal;
  /**
   * Leave `metadata.managedFields` out of the objects, cut from each event's text before it is
   * parsed (a cache that drops them anyway saves parsing them); objects where the field is not
   * found where the apiserver puts it keep it.
   */
  omitManagedFields?: boolean;
}

/** Options of create/update/updateStatus. */
export interface WriteOptions extends CallOptions {
  /** Validate and admit without persisting. */
  dryRun?: boolean;
  /** Names the writer in managedFields. */
  fieldManager?: string;
  /** How unknown or duplicate fields are treated. */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

/** Options of delete/deleteCollection: meta/v1 DeleteOptions. */
export interface DeleteOptions extends CallOptions {
  /** What happens to dependents: Foreground waits for them, Background (default for most) does not, Orphan keeps them. */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid / resourceVersion (409 Conflict otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

/** Recursively optional version of T, the shape of merge patches. */
export type DeepPartial<T> = T extends readonly (infer E)[]
  ? DeepPartial<E>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> | null }
    : T;

/** One RFC 6902 JSON Patch operation. `test` makes the patch fail (422) unless the value matches. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** A patch for `patch`/`patchStatus`: JSON Patch, JSON merge patch, strategic merge (built-in kinds only) or server-side apply. */
export type Patch<T extends KubernetesObject> =
  | { type: 'json'; operations: JsonPatchOperation[] }
  | { type: 'merge'; patch: DeepPartial<T> }
  | { type: 'strategic-merge'; patch: DeepPartial<T> }
  | {
      type: 'apply';
      /** The fields this manager owns; apiVersion and kind are filled in when missing. */
      patch: DeepPartial<T>;
      /** Required by server-side apply: who owns the fields in `patch`. */
      fieldManager: string;
      /** Take ownership of fields another manager owns instead of failing with a 409 conflict. */
      force?: boolean;
    };

/** Content-Type of each patch type. */
export const PATCH_CONTENT_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  'strategic-merge': 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** Options of `patch`/`patchStatus` besides the patch itself. */
export interface PatchOptions extends CallOptions {
  dryRun?: boolean;
  /** Manager name for json/merge patches (apply patches carry their own). */
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

/** A watch event with a typed object. BOOKMARK events carry only the new resourceVersion. */
export type WatchEvent<T> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T } | { type: 'BOOKMARK'; object: BookmarkObject };

/** The object of a BOOKMARK event: kind/apiVersion and metadata.resourceVersion (and annotations, e.g. the initial-events-end marker). */
export interface BookmarkObject {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion: string; annotations?: { [key: string]: string } };
}
