import type { KubernetesObject } from '../client/types/meta.js';
import type { ResourceType } from '../client/resource/options.js';
import type { IndexFunction } from '../cache/indexer.js';
import { metaOf } from '../cache/object-meta.js';

/** The key of an index value that holds objects of every namespace, as controller-runtime names it. */
const ALL_NAMESPACES = '__all_namespaces';

/** The name of the cache index of `field`. */
export function fieldIndexName(field: string): string {
  return `field:${field}`;
}

/** The key under which objects with `value` in `namespace` (every namespace when undefined) are indexed. */
export function fieldIndexKey(namespace: string | undefined, value: string): string {
  return `${namespace ?? ALL_NAMESPACES}/${value}`;
}

/**
 * Turns an extractor into the cache's index function with controller-runtime's keys: each value
 * is indexed once for all namespaces and once under the object's own namespace, so a list in one
 * namespace reads only that namespace's objects.
 */
export function fieldIndexFunction<T extends KubernetesObject>(
  extract: (object: T) => readonly string[],
): IndexFunction<T> {
  return (object) => {
    const namespace = metaOf(object).namespace || undefined;
    return extract(object).flatMap((value) => [
      fieldIndexKey(undefined, value),
      ...(namespace ? [fieldIndexKey(namespace, value)] : []),
    ]);
  };
}

/** What {@link Cluster.indexField} refuses and why the list of an unindexed field fails. */
export function missingIndexMessage(type: ResourceType, field: string): string {
  return `list ${type.kind}: no field index for "${field}"; add one before the manager starts: manager.indexField(<${type.kind} type>, '${field}', (object) => [...values])`;
}
