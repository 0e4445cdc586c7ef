import type { RestClient } from './rest/rest-client.js';
import type { KubernetesObject, ObjectList, Scale } from './types/meta.js';
import {
  apiVersionOf,
  type DeepPartial,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type Patch,
  type PatchOptions,
  type ResourceType,
  type WriteOptions,
} from './resource/options.js';
import { ScalableResourceClient } from './resource/resource-client.js';

/** Names one object: a namespace (for namespaced kinds) and a name. A reconcile `Request` is one. */
export interface ObjectKey {
  readonly namespace?: string;
  readonly name: string;
}

/** Options of {@link Client.get}. */
export interface ClientGetOptions extends GetOptions {
  /** Read from the apiserver even when the kind is served from the cache. */
  live?: boolean;
}

/** Options of {@link Client.list}. */
export interface ClientListOptions extends ListOptions {
  /** Only objects in this namespace; all namespaces when left out. */
  namespace?: string;
  /** Read from the apiserver even when the kind is served from the cache. */
  live?: boolean;
  /**
   * Only objects whose field indexes hold these values (controller-runtime's `MatchingFields`),
   * served from a manager's cache; each field needs `manager.indexField` before the manager starts.
   */
  matchingFields?: Readonly<Record<string, string>>;
}

/** Options of {@link Client.apply}: server-side apply always names its field manager. */
export interface ApplyOptions extends PatchOptions {
  fieldManager: string;
  /** Take ownership of fields another manager owns instead of failing with a 409 conflict. */
  force?: boolean;
}

/** Options of {@link Client.deleteAllOf}. */
export interface DeleteAllOfOptions
  extends DeleteOptions, Omit<ListOptions, 'limit' | 'continue' | 'omitManagedFields'> {
  /** The namespace to empty (namespaced kinds); all namespaces are never emptied at once. */
  namespace?: string;
}

/** A server-side apply configuration: a partial object that names itself. */
export type ApplyConfiguration<T extends KubernetesObject> = DeepPartial<T> & {
  metadata: { name: string; namespace?: string };
};

/** Writes of the status subresource. */
export interface StatusWriter {
  /** Replaces the status; the object's resourceVersion guards against lost updates (409 `isConflict`). */
  update<T extends KubernetesObject>(type: ResourceType<T>, object: T, options?: WriteOptions): Promise<T>;
  /** Patches the status (JSON, merge, or for built-in kinds strategic merge). */
  patch<T extends KubernetesObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patch: Patch<T>,
    options?: PatchOptions,
  ): Promise<T>;
  /** Server-side apply of the status fields `fieldManager` owns. */
  apply<T extends KubernetesObject>(
    type: ResourceType<T>,
    object: ApplyConfiguration<T>,
    options: ApplyOptions,
  ): Promise<T>;
}

/** Reads and writes of the scale subresource (`kubectl scale`). */
export interface ScaleClient {
  get(type: ResourceType, key: ObjectKey, options?: GetOptions): Promise<Scale>;
  update(type: ResourceType, key: ObjectKey, scale: Scale, options?: WriteOptions): Promise<Scale>;
}

/**
 * Reads objects: the part of a {@link Client} a cache can serve. A manager's client reads watched
 * kinds from its informers through one of these; a plain client reads from the apiserver.
 */
export interface ObjectReader {
  get<T extends KubernetesObject>(type: ResourceType<T>, key: ObjectKey, options?: ClientGetOptions): Promise<T>;
  list<T extends KubernetesObject>(type: ResourceType<T>, options?: ClientListOptions): Promise<ObjectList<T>>;
}

/**
 * One client for every kind, as controller-runtime's `client.Client`: the kind is named by its
 * typed descriptor, so results are typed. Under a manager (`manager.client`, the reconcile
 * context's `client`) reads of watched kinds come from the informer cache and writes go to the
 * apiserver; {@link createClient} makes one that always reads from the apiserver.
 */
export interface Client extends ObjectReader {
  /** Creates an object; apiVersion and kind are filled in when missing. */
  create<T extends KubernetesObject>(type: ResourceType<T>, object: T, options?: WriteOptions): Promise<T>;
  /** Replaces an object (not its status); its resourceVersion guards against lost updates (409 `isConflict`). */
  update<T extends KubernetesObject>(type: ResourceType<T>, object: T, options?: WriteOptions): Promise<T>;
  /** Patches an object: JSON Patch, merge patch, or for built-in kinds strategic merge patch. */
  patch<T extends KubernetesObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patch: Patch<T>,
    options?: PatchOptions,
  ): Promise<T>;
  /** Server-side apply: the apiserver merges the fields `fieldManager` owns into the object, creating it when missing. */
  apply<T extends KubernetesObject>(
    type: ResourceType<T>,
    object: ApplyConfiguration<T>,
    options: ApplyOptions,
  ): Promise<T>;
  /** Deletes an object; finalizers may keep it until they ran. Preconditions fail with `isConflict`. */
  delete(type: ResourceType, key: ObjectKey, options?: DeleteOptions): Promise<void>;
  /** Deletes every object of a kind matching the selectors, in one namespace (namespaced kinds) or the cluster. */
  deleteAllOf(type: ResourceType, options?: DeleteAllOfOptions): Promise<void>;
  /** The status subresource. */
  status(): StatusWriter;
  /** The scale subresource. */
  scale(): ScaleClient;
}

/** A client that reads and writes through the apiserver (outside a manager, or as its live reader). */
export function createClient(rest: RestClient): Client {
  return new ApiClient(rest);
}

/**
 * The client implementation: writes go to the apiserver through per-kind resource clients that
 * are built once and kept; reads go to `reader` (a cache) unless it is absent or the call asks
 * for a live read.
 */
export class ApiClient implements Client {
  private readonly resources = new WeakMap<ResourceType, Map<string, ScalableResourceClient<KubernetesObject>>>();
  private readonly statusWriter: StatusWriter;
  private readonly scaleClient: ScaleClient;

  constructor(
    readonly rest: RestClient,
    private readonly reader?: ObjectReader,
  ) {
    const resource = this.resource.bind(this);
    this.statusWriter = {
      update: (type, object, options) => resource(type, object.metadata?.namespace).updateStatus(object, options),
      patch: (type, key, patch, options) => resource(type, key.namespace).patchStatus(key.name, patch, options),
      apply<T extends KubernetesObject>(
        type: ResourceType<T>,
        object: ApplyConfiguration<T>,
        options: ApplyOptions,
      ): Promise<T> {
        const patch: Patch<T> = {
          type: 'apply',
          patch: object as DeepPartial<T>,
          fieldManager: options.fieldManager,
          force: options.force,
        };
        return resource(type, object.metadata.namespace).patchStatus(object.metadata.name, patch, options);
      },
    };
    this.scaleClient = {
      get: (type, key, options) => this.resource(type, key.namespace).getScale(key.name, options),
      update: (type, key, scale, options) => this.resource(type, key.namespace).updateScale(key.name, scale, options),
    };
  }

  get<T extends KubernetesObject>(type: ResourceType<T>, key: ObjectKey, options: ClientGetOptions = {}): Promise<T> {
    if (this.reader && !options.live) return this.reader.get(type, key, options);
    return this.resource(type, key.namespace).get(key.name, options);
  }

  list<T extends KubernetesObject>(type: ResourceType<T>, options: ClientListOptions = {}): Promise<ObjectList<T>> {
    if (this.reader && !options.live) return this.reader.list(type, options);
    if (options.matchingFields)
      return Promise.reject(
        new TypeError(
          `list ${type.kind}: matchingFields is answered from a manager's cache (manager.client), not by the apiserver; use fieldSelector here`,
        ),
      );
    return this.resource(type, options.namespace).listComplete(options);
  }

  create<T extends KubernetesObject>(type: ResourceType<T>, object: T, options?: WriteOptions): Promise<T> {
    return this.resource(type, object.metadata?.namespace).create(object, options);
  }

  update<T extends KubernetesObject>(type: ResourceType<T>, object: T, options?: WriteOptions): Promise<T> {
    return this.resource(type, object.metadata?.namespace).update(object, options);
  }

  patch<T extends KubernetesObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patch: Patch<T>,
    options?: PatchOptions,
  ): Promise<T> {
    return this.resource(type, key.namespace).patch(key.name, patch, options);
  }

  apply<T extends KubernetesObject>(
    type: ResourceType<T>,
    object: ApplyConfiguration<T>,
    options: ApplyOptions,
  ): Promise<T> {
    return this.resource(type, object.metadata.namespace).apply(object as DeepPartial<T>, options);
  }

  delete(type: ResourceType, key: ObjectKey, options?: DeleteOptions): Promise<void> {
    return this.resource(type, key.namespace).delete(key.name, options);
  }

  deleteAllOf(type: ResourceType, options: DeleteAllOfOptions = {}): Promise<void> {
    if (type.namespaced && !options.namespace) {
      throw new TypeError(
        `deleteAllOf ${type.kind}: name the namespace to empty (namespaced kinds are never emptied across all namespaces at once)`,
      );
    }
    return this.resource(type, options.namespace).deleteCollection(options);
  }

  status(): StatusWriter {
    return this.statusWriter;
  }

  scale(): ScaleClient {
    return this.scaleClient;
  }

  /** The resource client of a kind in one scope, built on first use. */
  private resource<T extends KubernetesObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
  ): ScalableResourceClient<T> {
    const scope = type.namespaced ? (namespace ?? '') : '';
    let byScope = this.resources.get(type);
    if (!byScope) {
      byScope = new Map();
      this.resources.set(type, byScope);
    }
    let client = byScope.get(scope);
    if (!client) {
      client = new ScalableResourceClient<KubernetesObject>(this.rest, type, scope || undefined);
      byScope.set(scope, client);
    }
    return client as unknown as ScalableResourceClient<T>;
  }
}

/** A list object as the apiserver would send it, for reads served from a cache. */
export function listOf<T extends KubernetesObject>(
  type: ResourceType<T>,
  items: T[],
  resourceVersion?: string,
): ObjectList<T> {
  return {
    apiVersion: apiVersionOf(type),
    kind: type.listKind ?? `${type.kind}List`,
    metadata: resourceVersion ? { resourceVersion } : {},
    items,
  };
}
