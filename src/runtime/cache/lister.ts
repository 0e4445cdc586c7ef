import { deepCopy } from '../util/deep-copy.js';
import type { KubernetesObject } from '../client/types/meta.js';
import type { Indexer } from './indexer.js';
import { NAMESPACE_INDEX } from './indexer.js';
import { parseLabelSelector } from './label-selector.js';
import { metaOf } from './object-meta.js';

/** Options of {@link Lister.list}. */
export interface ListerListOptions {
  /** Only objects in this namespace. */
  namespace?: string;
  /** Only objects carrying every one of these labels with these values. */
  labels?: Readonly<Record<string, string>>;
  /**
   * Only objects matching this label selector, in the apiserver's syntax (`tier!=db`,
   * `env in (prod,staging)`, `!legacy`), with the same meaning as in a server-side list.
   */
  labelSelector?: string;
  /** Only objects every one of these custom indexes lists under the value given (the lookup replaces a scan). */
  indexed?: ReadonlyArray<{ index: string; value: string }>;
}

/**
 * A read from a cache limited to one namespace asked for another: the cache cannot know whether
 * the object exists, so answering "not found" could make a reconcile treat it as deleted.
 */
export class CacheScopeError extends Error {
  /** `cached`: the namespace, or namespaces, the cache holds. */
  constructor(requested: string, cached: string | readonly string[]) {
    const held =
      typeof cached === 'string' || cached.length === 1
        ? `namespace "${String(cached)}" only`
        : `namespaces ${cached.map((ns) => `"${ns}"`).join(', ')} only`;
    super(
      `the cache holds ${held}; "${requested}" is not cached (read it with { live: true }, or widen the cache's namespaces)`,
    );
    this.name = 'CacheScopeError';
  }
}

/**
 * A read from a cache whose first list has not finished: "not found" would be a guess. Thrown
 * from a reconcile, it is retried with backoff until the cache is ready (controller-runtime's
 * cache blocks such reads instead).
 */
export class CacheNotSyncedError extends Error {
  constructor(cache: string) {
    super(
      `the cache of ${cache} has not synced yet; retry once it has (a reconcile that throws this is retried with backoff)`,
    );
    this.name = 'CacheNotSyncedError';
  }
}

/**
 * Typed read access to an informer's cache; reads throw {@link CacheNotSyncedError} until the
 * informer's first list is in. Like controller-runtime's cache reader, it returns
 * deep copies: a reconcile may change what it read (and fail to write it) without corrupting the
 * cache or its indexes. The informer's `indexer` gives the shared objects without copying, for
 * hot paths that only read.
 */
export class Lister<T extends KubernetesObject> {
  /**
   * `namespace`: the namespace (or namespaces) the cache holds, when its informer is limited to
   * them; `source`: the informer, whose sync state guards reads.
   */
  constructor(
    private readonly indexer: Indexer<T>,
    private readonly namespace?: string | readonly string[],
    private readonly source?: { readonly name: string; hasSynced(): boolean },
  ) {}

  private checkScope(namespace: string): void {
    const held = this.namespace;
    if (held === undefined || held === '') return;
    if (typeof held === 'string' ? namespace !== held : !held.includes(namespace))
      throw new CacheScopeError(namespace, held);
  }

  private checkSynced(): void {
    if (this.source && !this.source.hasSynced()) throw new CacheNotSyncedError(this.source.name);
  }

  /** A namespaced object by namespace and name. */
  get(namespace: string, name: string): T | undefined;
  /** A cluster-scoped object by name. */
  get(name: string): T | undefined;
  get(namespaceOrName: string, name?: string): T | undefined {
    if (name !== undefined) this.checkScope(namespaceOrName);
    this.checkSynced();
    const object = this.indexer.get(
      name === undefined ? namespaceOrName : namespaceOrName ? `${namespaceOrName}/${name}` : name,
    );
    return object === undefined ? undefined : deepCopy(object);
  }

  /** Copies of the cached objects, optionally narrowed to a namespace, labels and a label selector. */
  list(options: ListerListOptions = {}): T[] {
    if (options.namespace !== undefined) this.checkScope(options.namespace);
    this.checkSynced();
    const objects = options.indexed?.length
      ? this.byIndexes(options.indexed, options.namespace)
      : options.namespace !== undefined
        ? this.indexer.byIndex(NAMESPACE_INDEX, options.namespace)
        : this.indexer.list();
    const wanted = options.labels ? Object.entries(options.labels) : [];
    const selector = options.labelSelector ? parseLabelSelector(options.labelSelector) : undefined;
    const matching =
      wanted.length === 0 && !selector
        ? objects
        : objects.filter((object) => {
            const labels = metaOf(object).labels ?? {};
            return wanted.every(([key, value]) => labels[key] === value) && (selector?.(labels) ?? true);
          });
    return matching.map((object) => deepCopy(object));
  }

  /** The objects every index lists under its value, in `namespace` when given. */
  private byIndexes(indexed: ReadonlyArray<{ index: string; value: string }>, namespace: string | undefined): T[] {
    const [first, ...rest] = indexed.map(({ index, value }) => this.indexer.byIndex(index, value));
    const others = rest.map((objects) => new Set(objects));
    return first!.filter(
      (object) =>
        others.every((set) => set.has(object)) && (namespace === undefined || metaOf(object).namespace === namespace),
    );
  }

  /** Copies of the objects whose custom index `indexName` contains `value`. */
  byIndex(indexName: string, value: string): T[] {
    this.checkSynced();
    return this.indexer.byIndex(indexName, value).map((object) => deepCopy(object));
  }
}
