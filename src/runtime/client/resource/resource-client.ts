import type { RestClient, Query } from '../rest/rest-client.js';
import type { Status } from '../../../api/index.js';
import type { KubernetesObject, ObjectList, Scale } from '../types/meta.js';
import { listComplete, type ListCompleteOptions } from './list-pager.js';
import {
  METADATA_ONLY_ACCEPT,
  METADATA_ONLY_LIST_ACCEPT,
  PATCH_CONTENT_TYPES,
  apiVersionOf,
  fieldSelectorString,
  selectorString,
  type DeepPartial,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type Patch,
  type PatchOptions,
  type ResourceType,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from './options.js';
import { pathSegment } from './path-segment.js';

/** Builds the collection path of a resource, optionally inside a namespace. */
export function resourcePath(type: ResourceType, namespace?: string): string {
  const prefix = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  const resource = pathSegment(type.resource, `${type.kind || 'resource'}: resource`);
  return namespace
    ? `${prefix}/namespaces/${pathSegment(namespace, `${type.kind || type.resource}: namespace`)}/${resource}`
    : `${prefix}/${resource}`;
}

function listQuery(options: ListOptions): Query {
  return {
    labelSelector: selectorString(options.labelSelector),
    fieldSelector: fieldSelectorString(options.fieldSelector),
    limit: options.limit,
    continue: options.continue,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
    timeoutSeconds: options.timeoutSeconds,
  };
}

function writeQuery(options: WriteOptions | PatchOptions): Query {
  return {
    dryRun: options.dryRun ? 'All' : undefined,
    fieldManager: options.fieldManager,
    fieldValidation: options.fieldValidation,
  };
}

function call(options: { signal?: AbortSignal; timeoutMs?: number }): { signal?: AbortSignal; timeoutMs?: number } {
  return { signal: options.signal, timeoutMs: options.timeoutMs };
}

/**
 * Reads and writes objects of one resource type in one scope: a namespace for namespaced kinds,
 * the cluster for cluster-scoped ones (or all namespaces of a namespaced kind, for list and
 * watch). Internal to kop/runtime: the one public client is `Client`, which keeps one of these
 * per kind and scope; informers, leader election and the event recorder use them directly.
 */
export class ResourceClient<T extends KubernetesObject> {
  /** apiVersion written into objects that lack one. */
  readonly apiVersion: string;
  protected readonly collectionPath: string;

  constructor(
    protected readonly rest: RestClient,
    readonly type: ResourceType<T>,
    /** The namespace this client is scoped to; undefined for cluster-scoped kinds (or all namespaces). */
    readonly namespace?: string,
  ) {
    this.apiVersion = apiVersionOf(type);
    this.collectionPath = resourcePath(type, namespace);
  }

  /** Path of one object, or of one of its subresources. */
  protected objectPath(name: string, subresource?: string): string {
    if (!name) throw new TypeError(`${this.type.kind}: a name is required`);
    return `${this.collectionPath}/${pathSegment(name, `${this.type.kind || this.type.resource}: name`)}${subresource ? `/${subresource}` : ''}`;
  }

  /** The Accept header of a metadata-only descriptor's answers (one object, or a list); undefined otherwise. */
  private accept(list: boolean): string | undefined {
    if (!this.type.metadataOnly) return undefined;
    return list ? METADATA_ONLY_LIST_ACCEPT : METADATA_ONLY_ACCEPT;
  }

  /** A metadata-only descriptor sends no whole objects: the body would lack every field but metadata. */
  private refusedMetadataOnly(verb: string): Promise<never> | undefined {
    if (!this.type.metadataOnly) return undefined;
    return Promise.reject(
      new TypeError(
        `${this.type.kind}: cannot ${verb} through a metadata-only descriptor (it would send metadata alone); ` +
          'use the full descriptor, or patch the metadata',
      ),
    );
  }

  /** Reads one object by name. Throws ApiError (`isNotFound`) when it does not exist. */
  get(name: string, options: GetOptions = {}): Promise<T> {
    return this.rest.request<T>({
      method: 'GET',
      path: this.objectPath(name),
      query: { resourceVersion: options.resourceVersion },
      accept: this.accept(false),
      ...call(options),
    });
  }

  /** Lists one page of objects. Pass `limit` and then each response's `metadata.continue` to page. */
  list(options: ListOptions = {}): Promise<ObjectList<T>> {
    const list = this.rest.request<ObjectList<T>>({
      method: 'GET',
      path: this.collectionPath,
      query: listQuery(options),
      accept: this.accept(true),
      ...call(options),
      ...(options.omitManagedFields ? { omitManagedFields: true } : {}),
    });
    // An empty PartialObjectMetadataList comes with `"items": null`.
    return this.type.metadataOnly ? list.then((page) => (page.items ? page : { ...page, items: [] })) : list;
  }

  /**
   * Returns every matching object as one list, fetched in pages of `limit` (default 500), with the
   * snapshot's `metadata.resourceVersion` to watch from. If etcd compacts past the first page's
   * revision before the last page (410 Gone on a continued page), it does one list without `limit`
   * and returns that consistent snapshot instead of failing; a 410 on the first page is thrown.
   */
  listComplete(options: ListCompleteOptions = {}): Promise<ObjectList<T>> {
    return listComplete((page) => this.list(page), options);
  }

  /**
   * Yields every matching object, fetching pages of `limit` (default 500) as it goes. If a page
   * takes so long that etcd compacts past the first page's revision, the next page fails with
   * `isGone`; this cannot retry itself because the items already yielded would repeat. Callers
   * that need the whole set even then use `listComplete`, which falls back to one full list.
   */
  async *listAll(options: ListOptions = {}): AsyncGenerator<T, void, undefined> {
    const { resourceVersion, resourceVersionMatch, ...rest } = options;
    let token = options.continue;
    do {
      // The token pins the revision; the apiserver refuses resourceVersion(Match) beside it.
      const pinned = token ? {} : { resourceVersion, resourceVersionMatch };
      const page = await this.list({ ...rest, ...pinned, limit: options.limit ?? 500, continue: token });
      yield* page.items;
      token = page.metadata.continue || undefined;
    } while (token);
  }

  /**
   * Watches changes from `resourceVersion` as typed events, in order. Ends when the server closes
   * the watch or the signal aborts; throws ApiError with `isGone` when the resourceVersion is too old.
   */
  watch(options: WatchOptions = {}): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const query: Query = {
      labelSelector: selectorString(options.labelSelector),
      fieldSelector: fieldSelectorString(options.fieldSelector),
      resourceVersion: options.resourceVersion,
      resourceVersionMatch: options.resourceVersionMatch,
      allowWatchBookmarks: options.allowWatchBookmarks,
      sendInitialEvents: options.sendInitialEvents,
      timeoutSeconds: options.timeoutSeconds,
    };
    // The RestClient's generator itself (lazy as well: nothing is sent before the first read),
    // not one more generator around it that every event would pass through.
    return this.rest.watch<T>(this.collectionPath, query, {
      signal: options.signal,
      accept: this.accept(false),
      omitManagedFields: options.omitManagedFields,
    }) as AsyncGenerator<WatchEvent<T>, void, undefined>;
  }

  /** Creates an object; apiVersion and kind are filled in when missing. Throws `isAlreadyExists` on a taken name. */
  create(object: T, options: WriteOptions = {}): Promise<T> {
    return (
      this.refusedMetadataOnly('create') ??
      this.rest.post<T>(this.collectionPath, this.withTypeMeta(object), writeQuery(options), call(options))
    );
  }

  /**
   * Replaces an object (not its status). Carries `metadata.resourceVersion`, so a write based on a
   * stale read fails with `isConflict`; wrap read-modify-update in `retryOnConflict`.
   */
  update(object: T, options: WriteOptions = {}): Promise<T> {
    return (
      this.refusedMetadataOnly('update') ??
      this.rest.put<T>(
        this.objectPath(nameOf(object, this.type)),
        this.withTypeMeta(object),
        writeQuery(options),
        call(options),
      )
    );
  }

  /** Replaces the status subresource; the spec in `object` is ignored by the server. */
  updateStatus(object: T, options: WriteOptions = {}): Promise<T> {
    return (
      this.refusedMetadataOnly('update the status') ??
      this.rest.put<T>(
        this.objectPath(nameOf(object, this.type), 'status'),
        this.withTypeMeta(object),
        writeQuery(options),
        call(options),
      )
    );
  }

  /** Patches an object with JSON Patch, merge patch, strategic merge patch or server-side apply. */
  patch(name: string, patch: Patch<T>, options: PatchOptions = {}): Promise<T> {
    return this.sendPatch(this.objectPath(name), patch, options);
  }

  /** Patches the status subresource. */
  patchStatus(name: string, patch: Patch<T>, options: PatchOptions = {}): Promise<T> {
    return this.sendPatch(this.objectPath(name, 'status'), patch, options);
  }

  /**
   * Server-side apply of a (partial) object: the server merges the fields `fieldManager` owns.
   * Fails with `isConflict` when another manager owns a field with a different value, unless `force`.
   */
  apply(object: DeepPartial<T>, options: PatchOptions & { fieldManager: string; force?: boolean }): Promise<T> {
    const name = (object as { metadata?: { name?: string | null } }).metadata?.name;
    if (!name) throw new TypeError(`${this.type.kind}: apply needs metadata.name`);
    return this.patch(
      name,
      { type: 'apply', patch: object, fieldManager: options.fieldManager, force: options.force },
      options,
    );
  }

  /**
   * Deletes an object. Resolves when the server accepted the deletion (finalizers may keep the
   * object around). Preconditions make it fail with `isConflict` if the object changed.
   */
  async delete(name: string, options: DeleteOptions = {}): Promise<void> {
    await this.rest.delete<T | Status>(this.objectPath(name), deleteBody(options), {}, call(options));
  }

  /** Deletes every object matching the selectors in this scope. */
  async deleteCollection(options: DeleteOptions & ListOptions = {}): Promise<void> {
    await this.rest.delete<ObjectList<T> | Status>(
      this.collectionPath,
      deleteBody(options),
      listQuery(options),
      call(options),
    );
  }

  private sendPatch(path: string, patch: Patch<T>, options: PatchOptions): Promise<T> {
    const query = writeQuery(options);
    let body: unknown;
    switch (patch.type) {
      case 'json':
        body = patch.operations;
        break;
      case 'merge':
      case 'strategic-merge':
        body = patch.patch;
        break;
      case 'apply':
        if (!patch.fieldManager) throw new TypeError(`${this.type.kind}: server-side apply needs a fieldManager`);
        body = this.withTypeMeta(patch.patch as T);
        query.fieldManager = patch.fieldManager;
        query.force = patch.force ? true : undefined;
        break;
    }
    return this.rest.request<T>({
      method: 'PATCH',
      path,
      query,
      body,
      contentType: PATCH_CONTENT_TYPES[patch.type],
      accept: this.accept(false),
      ...call(options),
    });
  }

  /** Adds apiVersion/kind when absent; the apiserver refuses bodies without them. */
  protected withTypeMeta<O extends KubernetesObject>(object: O): O {
    if (object.apiVersion && object.kind) return object;
    return { ...object, apiVersion: object.apiVersion ?? this.apiVersion, kind: object.kind ?? this.type.kind };
  }
}

/** A ResourceClient for kinds with a `scale` subresource (Deployments, StatefulSets, CRDs that declare one). */
export class ScalableResourceClient<T extends KubernetesObject> extends ResourceClient<T> {
  /** Reads the autoscaling/v1 Scale of an object. */
  getScale(name: string, options: GetOptions = {}): Promise<Scale> {
    return this.rest.get<Scale>(
      this.objectPath(name, 'scale'),
      { resourceVersion: options.resourceVersion },
      call(options),
    );
  }

  /** Writes the Scale (spec.replicas); carries its resourceVersion like `update`. */
  updateScale(name: string, scale: Scale, options: WriteOptions = {}): Promise<Scale> {
    const body: Scale = {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      ...scale,
      metadata: { name, namespace: this.namespace, ...scale.metadata },
    };
    return this.rest.put<Scale>(this.objectPath(name, 'scale'), body, writeQuery(options), call(options));
  }
}

function nameOf(object: KubernetesObject, type: ResourceType): string {
  const name = object.metadata?.name;
  if (!name) throw new TypeError(`${type.kind}: metadata.name is required`);
  return name;
}

function deleteBody(options: DeleteOptions): Record<string, unknown> | undefined {
  const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
  if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
  if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.preconditions) body.preconditions = options.preconditions;
  if (options.dryRun) body.dryRun = ['All'];
  return Object.keys(body).length > 2 ? body : undefined;
}
