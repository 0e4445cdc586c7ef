import type { KubernetesObject } from '../client/index.js';
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
}

/**
 * A read from a cache limited to one namespace asked for another: the cache cannot know whether
 * the object exists, so answering "not found" could make a reconcile treat it as deleted.
 */
export class CacheScopeError extends Error {
  constructor(requested: string, cached: string) {
    super(`the cache holds namespace "${cached}" only; "${requested}" is not cached (read it with a client, or widen the manager's namespace)`);
    this.name = 'CacheScopeError';
  }
}

/**
 * Typed read access to an informer's cache. Like controller-runtime's cache reader, it returns
 * deep copies: a reconcile may change what it read (and fail to write it) without corrupting the
 * cache or its indexes. The informer's `indexer` gives the shared objects without copying, for
 * hot paths that only read.
 */
export class Lister<T extends KubernetesObject> {
  /** `namespace`: the one namespace the cache holds, when its informer is limited to it. */
  constructor(
    private readonly indexer: Indexer<T>,
    private readonly namespace?: string,
  ) {}

  private checkScope(namespace: string): void {
    if (this.namespace && namespace !== this.namespace) throw new CacheScopeError(namespace, this.namespace);
  }

  /** A namespaced object by namespace and name. */
  get(namespace: string, name: string): T | undefined;
  /** A cluster-scoped object by name. */
  get(name: string): T | undefined;
  get(namespaceOrName: string, name?: string): T | undefined {
    if (name !== undefined) this.checkScope(namespaceOrName);
    const object = this.indexer.get(name === undefined ? namespaceOrName : namespaceOrName ? `${namespaceOrName}/${name}` : name);
    return object === undefined ? undefined : structuredClone(object);
  }

  /** Copies of the cached objects, optionally narrowed to a namespace, labels and a label selector. */
  list(options: ListerListOptions = {}): T[] {
    if (options.namespace !== undefined) this.checkScope(options.namespace);
    const objects = options.namespace !== undefined ? this.indexer.byIndex(NAMESPACE_INDEX, options.namespace) : this.indexer.list();
    const wanted = options.labels ? Object.entries(options.labels) : [];
    const selector = options.labelSelector ? parseLabelSelector(options.labelSelector) : undefined;
    const matching =
      wanted.length === 0 && !selector
        ? objects
        : objects.filter((object) => {
            const labels = metaOf(object).labels ?? {};
            return wanted.every(([key, value]) => labels[key] === value) && (selector?.(labels) ?? true);
          });
    return matching.map((object) => structuredClone(object));
  }

  /** Copies of the objects whose custom index `indexName` contains `value`. */
  byIndex(indexName: string, value: string): T[] {
    return this.indexer.byIndex(indexName, value).map((object) => structuredClone(object));
  }
}
