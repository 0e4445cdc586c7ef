import type { KubernetesObject } from '../client/types/meta.js';
import { metaOf, objectKey } from './object-meta.js';
import { estimateJsonBytes } from './object-size.js';

/** Computes the index values of an object; an object may appear under several values. */
export type IndexFunction<T> = (object: T) => string[];

/** Name of the built-in index of objects by namespace. */
export const NAMESPACE_INDEX = 'namespace';

/**
 * The informer's cache: objects by key, plus secondary indexes (by namespace always, and any
 * custom ones) maintained on every change so lookups never scan the whole cache.
 */
export class Indexer<T extends KubernetesObject> {
  private readonly items = new Map<string, T>();
  private readonly indexFunctions = new Map<string, IndexFunction<T>>();
  /** index name -> index value -> keys */
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  private estimatedBytes = 0;

  constructor(indexers: Record<string, IndexFunction<T>> = {}) {
    this.addIndex(NAMESPACE_INDEX, (object) => [metaOf(object).namespace ?? '']);
    for (const [name, fn] of Object.entries(indexers)) this.addIndex(name, fn);
  }

  /** Adds a custom index; existing objects are indexed at once. */
  addIndex(name: string, fn: IndexFunction<T>): void {
    if (this.indexFunctions.has(name)) throw new Error(`index "${name}" already exists`);
    this.indexFunctions.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indexes.set(name, index);
    for (const [key, object] of this.items) addToIndex(index, fn(object), key);
  }

  /** The object stored under `key`, if any. */
  get(key: string): T | undefined {
    return this.items.get(key);
  }

  /** Every cached object. */
  list(): T[] {
    return [...this.items.values()];
  }

  /** Every cached key. */
  keys(): string[] {
    return [...this.items.keys()];
  }

  /** Number of cached objects. */
  get size(): number {
    return this.items.size;
  }

  /**
   * Estimated JSON size of the cached objects ({@link estimateJsonBytes}), kept up to date on each
   * change: a replaced or removed object is sized again rather than its size stored, which would
   * cost memory per object in the structure meant to show memory.
   */
  get bytes(): number {
    return this.estimatedBytes;
  }

  /** Objects whose index `indexName` contains `value`. */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indexes.get(indexName);
    if (!index) throw new Error(`no index named "${indexName}"`);
    const keys = index.get(value);
    if (!keys) return [];
    const result: T[] = [];
    for (const key of keys) {
      const object = this.items.get(key);
      if (object) result.push(object);
    }
    return result;
  }

  /** Stores `object` under `key` (its {@link objectKey}, when the caller has it already), returning the object it replaced. */
  upsert(object: T, key: string = objectKey(object)): T | undefined {
    const previous = this.items.get(key);
    if (previous) {
      this.unindex(previous, key);
      this.estimatedBytes -= estimateJsonBytes(previous);
    }
    this.items.set(key, object);
    this.estimatedBytes += estimateJsonBytes(object);
    for (const [name, fn] of this.indexFunctions) addToIndex(this.indexes.get(name)!, fn(object), key);
    return previous;
  }

  /** Removes the object under `key`, returning it. */
  remove(key: string): T | undefined {
    const previous = this.items.get(key);
    if (!previous) return undefined;
    this.unindex(previous, key);
    this.items.delete(key);
    this.estimatedBytes -= estimateJsonBytes(previous);
    return previous;
  }

  private unindex(object: T, key: string): void {
    for (const [name, fn] of this.indexFunctions) {
      const index = this.indexes.get(name)!;
      for (const value of fn(object)) {
        const keys = index.get(value);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
    }
  }
}

function addToIndex(index: Map<string, Set<string>>, values: string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (!keys) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}
