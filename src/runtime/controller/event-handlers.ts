import type { KubernetesObject } from '../client/types/meta.js';
import type { InformerEventHandler } from '../cache/informer.js';
import type { Request } from './request.js';
import { metaOf } from '../cache/object-meta.js';
import { requestFor } from './request.js';
import type { Predicate } from './predicates.js';

/** Maps an object that changed to the requests it should trigger. */
export type MapFunction<T extends KubernetesObject> = (object: T) => Request[];

/** Requests for the object itself (used by `for`). */
export function mapToSelf<T extends KubernetesObject>(): MapFunction<T> {
  return (object) => [requestFor(object)];
}

/** Identifies an owner kind by API group and kind (the version does not matter for ownership). */
export interface OwnerKind {
  group: string;
  kind: string;
  /** False for a cluster-scoped owner kind; default true. */
  namespaced?: boolean;
}

/**
 * Requests for the controller owner of an object (used by `owns`): the ownerReference with
 * `controller: true` whose group and kind match. A namespaced owner lives in the owned object's
 * namespace; a cluster-scoped owner is requested with namespace `''`, the key its own events use.
 */
export function mapToControllerOwner<T extends KubernetesObject>(owner: OwnerKind): MapFunction<T> {
  return (object) => {
    const meta = metaOf(object);
    const ref = meta.ownerReferences?.find((r) => r.controller === true);
    if (!ref || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) return [];
    return [{ namespace: owner.namespaced === false ? '' : (meta.namespace ?? ''), name: ref.name }];
  };
}

/** The group part of an apiVersion ('' for the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * Builds an informer handler that filters events through predicates and sends the mapped
 * requests to `enqueue`. Updates enqueue the requests of both the old and the new object, so a
 * changed owner reference wakes the previous owner too.
 */
export function requestHandler<T extends KubernetesObject>(
  map: MapFunction<T>,
  predicates: Predicate<T>[],
  enqueue: (request: Request) => void,
): InformerEventHandler<T> {
  const send = (requests: Request[]): void => {
    for (const request of requests) if (request.name) enqueue(request);
  };
  return {
    onAdd(object) {
      if (predicates.every((p) => p.create?.(object) ?? true)) send(map(object));
    },
    onUpdate(oldObject, newObject) {
      if (!predicates.every((p) => p.update?.(oldObject, newObject) ?? true)) return;
      send(map(newObject));
      if (oldObject !== newObject) send(map(oldObject));
    },
    onDelete(object) {
      if (predicates.every((p) => p.delete?.(object) ?? true)) send(map(object));
    },
  };
}
