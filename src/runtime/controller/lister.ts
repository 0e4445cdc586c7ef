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
 * Typed read access to an informer's cache. Like controller-runtime's cache reader, it returns
 * deep copies: a reconcile may change what it read (and fail to write it) without corrupting the
 * cache or its indexes. The informer's `indexer` gives the shared objects without copying, for
 * hot paths that only read.
 */
export class Lister<T extends KubernetesObject> {
  constructor(private readonly indexer: Indexer<T>) {}

  /** A namespaced object by namespace and name. */
  get(namespace: string, name: string): T | undefined;
  /** A cluster-scoped object by name. */
  get(name: string): T | undefined;
  get(namespaceOrName: string, name?: string): T | undefined {
    const object = this.indexer.get(name === undefined ? namespaceOrName : namespaceOrName ? `${namespaceOrName}/${name}` : name);
    return object === undefined ? undefined : structuredClone(object);
  }

  /** Copies of the cached objects, optionally narrowed to a namespace, labels and a label selector. */
  list(options: ListerListOptions = {}): T[] {
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
