import type { ClientGetOptions, ClientListOptions, ObjectKey, ObjectReader } from '../client/client.js';
import type { KubernetesObject, ObjectList } from '../client/types/meta.js';
import type { ResourceType } from '../client/resource/options.js';
import { ApiError } from '../client/errors/api-error.js';
import { apiVersionOf } from '../client/resource/options.js';
import { listOf } from '../client/client.js';
import { resourcePath } from '../client/resource/resource-client.js';
import { selectorString } from '../client/resource/options.js';
import type { Informer } from './informer.js';
import { inSpan, tracer } from '../util/tracing.js';
import type { Attributes } from '@opentelemetry/api';

/** What a {@link CacheReader} reads through: the manager's shared informers and its live reader. */
export interface CacheSource {
  /** The shared informer of a kind, created (and started, once the manager runs) on first use. */
  informerFor<T extends KubernetesObject>(type: ResourceType<T>): Informer<T>;
  /** True once the manager has started its informers; before that, reads go to the apiserver. */
  readonly informersStarted: boolean;
  /**
   * True once the cache has stopped (the manager stopped): reads fail then, so a reconcile still
   * running after its manager stopped neither reads a cache no longer kept nor reaches the
   * apiserver on its own.
   */
  readonly cacheStopped?: boolean;
  /** True for kinds that are never cached (always read from the apiserver). */
  isUncached(type: ResourceType): boolean;
  /** Reads from the apiserver. */
  readonly live: ObjectReader;
  /**
   * What limits the cache of a kind beyond its namespace (a label or field selector, the one of
   * `namespace` when it has its own), in words; named in "not found".
   */
  cacheSelectorOf?(type: ResourceType, namespace?: string): string | undefined;
  /**
   * The index lookups that answer `matchingFields` in `namespace` (all namespaces when undefined);
   * throws for a field without an index. Without it, `matchingFields` is refused.
   */
  fieldIndexes?(
    type: ResourceType,
    namespace: string | undefined,
    fields: Readonly<Record<string, string>>,
  ): Array<{ index: string; value: string }>;
}

/** The attributes of a cache read's span. */
function readAttributes(
  verb: 'get' | 'list',
  type: ResourceType,
  namespace: string | undefined,
  name: string | undefined,
  hit: boolean,
): Attributes {
  return {
    'kop.cache.hit': hit,
    'kop.k8s.kind': type.kind,
    'kop.k8s.verb': verb,
    ...(namespace ? { 'k8s.namespace.name': namespace } : {}),
    ...(name ? { 'kop.k8s.object.name': name } : {}),
  };
}

/** A span for a read answered from memory (when an SDK records). */
function traceHit(verb: 'get' | 'list', type: ResourceType, namespace?: string, name?: string): void {
  if (!tracer()) return; // no SDK: not even the span's name is built
  inSpan(`cache ${verb} ${type.kind}`, {}, (span) =>
    span?.setAttributes(readAttributes(verb, type, namespace, name, true)),
  );
}

/** A span for the first read of a kind, which waits for its informer's first list. */
function traceSync(
  verb: 'get' | 'list',
  type: ResourceType,
  namespace: string | undefined,
  name: string | undefined,
  sync: () => Promise<void>,
): Promise<void> {
  return inSpan(`cache ${verb} ${type.kind}`, {}, (span) => {
    span?.setAttributes({ ...readAttributes(verb, type, namespace, name, false), 'kop.cache.synced_informer': true });
    return sync();
  });
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
    if (!informer.hasSynced())
      await traceSync('get', type, key.namespace, key.name, () => informer.waitForSync(options.signal));
    else traceHit('get', type, key.namespace, key.name);
    const object = type.namespaced ? informer.lister.get(key.namespace ?? '', key.name) : informer.lister.get(key.name);
    if (object === undefined) throw notFound(type, key, this.source.cacheSelectorOf?.(type, key.namespace));
    return object;
  }

  async list<T extends KubernetesObject>(
    type: ResourceType<T>,
    options: ClientListOptions = {},
  ): Promise<ObjectList<T>> {
    if (options.matchingFields && !this.cached(type, options)) throw this.notFromCache(type, options);
    if (!this.cached(type, options)) return this.source.live.list(type, options);
    if (options.fieldSelector !== undefined) {
      throw new TypeError(
        `list ${type.kind}: field selectors are not served from the cache; pass { live: true } to ask the apiserver`,
      );
    }
    const informer = this.source.informerFor(type);
    const namespace = type.namespaced ? options.namespace : undefined;
    if (!informer.hasSynced())
      await traceSync('list', type, namespace, undefined, () => informer.waitForSync(options.signal));
    else traceHit('list', type, namespace);
    const fields = options.matchingFields;
    const items = informer.lister.list({
      namespace,
      labelSelector: selectorString(options.labelSelector),
      indexed: fields && this.fieldIndexes(type, namespace, fields),
    });
    return listOf(type, items, informer.lastSyncResourceVersion || undefined);
  }

  private fieldIndexes(
    type: ResourceType,
    namespace: string | undefined,
    fields: Readonly<Record<string, string>>,
  ): Array<{ index: string; value: string }> {
    if (!this.source.fieldIndexes) throw new TypeError(`list ${type.kind}: this cache has no field indexes`);
    return this.source.fieldIndexes(type, namespace, fields);
  }

  /** Why a list with `matchingFields` cannot be answered: only the cache has field indexes. */
  private notFromCache(type: ResourceType, options: ClientListOptions): TypeError {
    const why = options.live
      ? 'it asks for a live read'
      : this.source.isUncached(type)
        ? `${type.kind} is not cached (uncachedTypes)`
        : 'the cache has not started (start the manager first)';
    return new TypeError(
      `list ${type.kind} with matchingFields (${Object.keys(options.matchingFields ?? {}).join(', ')}): field indexes live in the cache and ${why}; use fieldSelector for an apiserver read`,
    );
  }

  private cached(type: ResourceType, options: { live?: boolean }): boolean {
    if (!options.live && this.source.cacheStopped)
      throw new Error(
        `cannot read ${type.kind} from the cache: the manager has stopped (pass { live: true } to read from the apiserver)`,
      );
    return !options.live && this.source.informersStarted && !this.source.isUncached(type);
  }
}

/**
 * The apiserver's answer for a missing object, so `isNotFound` works the same for cached reads.
 * When the cache holds only objects matching a selector, the message says so: the object may
 * exist outside it (controller-runtime answers the same "not found" then, without the hint).
 */
function notFound(type: ResourceType, key: ObjectKey, selector: string | undefined): ApiError {
  const path = `${resourcePath(type, type.namespaced ? key.namespace : undefined)}/${key.name}`;
  return new ApiError(
    {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      message: `${type.resource}${type.group ? `.${type.group}` : ''} "${key.name}" not found (${apiVersionOf(type)}, from the cache${
        selector
          ? `, which holds only ${type.kind} objects matching ${selector}; read with { live: true } to ask the apiserver`
          : ''
      })`,
      details: { name: key.name, group: type.group, kind: type.resource },
    },
    'GET',
    path,
  );
}
