import type { KubernetesObject } from '../client/index.js';
import type { Indexer } from './indexer.js';
import { NAMESPACE_INDEX } from './indexer.js';
import { metaOf } from './object-meta.js';

/** Options of {@link Lister.list}. */
export interface ListerListOptions {
  /** Only objects in this namespace. */
  namespace?: string;
  /** Only objects carrying every one of these labels with these values. */
  labels?: Readonly<Record<string, string>>;
}

/**
 * Typed, read-only view of an informer's cache. Objects are shared with the cache:
 * treat them as immutable (copy with structuredClone before changing one).
 */
export class Lister<T extends KubernetesObject> {
  constructor(private readonly indexer: Indexer<T>) {}

  /** A namespaced object by namespace and name. */
  get(namespace: string, name: string): T | undefined;
  /** A cluster-scoped object by name. */
  get(name: string): T | undefined;
  get(namespaceOrName: string, name?: string): T | undefined {
    return this.indexer.get(name === undefined ? namespaceOrName : namespaceOrName ? `${namespaceOrName}/${name}` : name);
  }

  /** Cached objects, optionally narrowed to a namespace and a label match. */
  list(options: ListerListOptions = {}): T[] {
    const objects = options.namespace !== undefined ? this.indexer.byIndex(NAMESPACE_INDEX, options.namespace) : this.indexer.list();
    const wanted = options.labels ? Object.entries(options.labels) : [];
    if (wanted.length === 0) return objects;
    return objects.filter((object) => {
      const labels = metaOf(object).labels ?? {};
      return wanted.every(([key, value]) => labels[key] === value);
    });
  }

  /** Objects whose custom index `indexName` contains `value`. */
  byIndex(indexName: string, value: string): T[] {
    return this.indexer.byIndex(indexName, value);
  }
}
