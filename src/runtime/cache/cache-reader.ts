import type { ClientGetOptions, ClientListOptions, ObjectKey, ObjectReader } from '../client/client.js';
import type { KubernetesObject, ObjectList } from '../client/types/meta.js';
import type { ResourceType } from '../client/resource/options.js';
import { ApiError } from '../client/errors/api-error.js';
import { apiVersionOf } from '../client/resource/options.js';
import { listOf } from '../client/client.js';
import { resourcePath } from '../client/resource/resource-client.js';
import { selectorString } from '../client/resource/options.js';
import type { Informer } from './informer.js';

/** What a {@link CacheReader} reads through: the manager's shared informers and its live reader. */
export interface CacheSource {
  /** The shared informer of a kind, created (and started, once the manager runs) on first use. */
  informerFor<T extends KubernetesObject>(type: ResourceType<T>): Informer<T>;
  /** True once the manager has started its informers; before that, reads go to the apiserver. */
  readonly informersStarted: boolean;
  /** True for kinds that are never cached (always read from the apiserver). */
  isUncached(type: ResourceType): boolean;
  /** Reads from the apiserver. */
  readonly live: ObjectReader;
}

/**
 * Serves reads from the manager's informer cache, as controller-runtime's cache-backed client:
 * the first read of a kind starts its informer and waits for its first list, later reads are
 * answered from memory (as deep copies, so a reconcile may change what it read). Kinds marked
 * uncached, calls with `live: true` and reads before the manager started go to the apiserver.
 */
export class CacheReader implements ObjectReader {
  constructor(private readonly source: CacheSource) {}

  async get<T extends KubernetesObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options: ClientGetOptions = {},
  ): Promise<T> {
    if (!this.cached(type, options)) return this.source.live.get(type, key, options);
    const informer = this.source.informerFor(type);
    if (!informer.hasSynced()) await informer.waitForSync(options.signal);
    const object = type.namespaced ? informer.lister.get(key.namespace ?? '', key.name) : informer.lister.get(key.name);
    if (object === undefined) throw notFound(type, key);
    return object;
  }

  async list<T extends KubernetesObject>(
    type: ResourceType<T>,
    options: ClientListOptions = {},
  ): Promise<ObjectList<T>> {
    if (!this.cached(type, options)) return this.source.live.list(type, options);
    if (options.fieldSelector !== undefined) {
      throw new TypeError(
        `list ${type.kind}: field selectors are not served from the cache; pass { live: true } to ask the apiserver`,
      );
    }
    const informer = this.source.informerFor(type);
    if (!informer.hasSynced()) await informer.waitForSync(options.signal);
    const items = informer.lister.list({
      namespace: type.namespaced ? options.namespace : undefined,
      labelSelector: selectorString(options.labelSelector),
    });
    return listOf(type, items, informer.lastSyncResourceVersion || undefined);
  }

  private cached(type: ResourceType, options: { live?: boolean }): boolean {
    return !options.live && this.source.informersStarted && !this.source.isUncached(type);
  }
}

/** The apiserver's answer for a missing object, so `isNotFound` works the same for cached reads. */
function notFound(type: ResourceType, key: ObjectKey): ApiError {
  const path = `${resourcePath(type, type.namespaced ? key.namespace : undefined)}/${key.name}`;
  return new ApiError(
    {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      message: `${type.resource}${type.group ? `.${type.group}` : ''} "${key.name}" not found (${apiVersionOf(type)}, from the cache)`,
      details: { name: key.name, group: type.group, kind: type.resource },
    },
    'GET',
    path,
  );
}
