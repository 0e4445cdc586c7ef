import type { KubernetesObject } from '../client/types/meta.js';

/**
 * What a request to reconcile names: one object, by namespace and name only (reconciling is
 * level-based: the reconciler reads the object's current state itself). `namespace` is '' for
 * cluster-scoped kinds. A request is an `ObjectKey`, so `client.get(type, request)` reads the object.
 */
export interface Request {
  namespace: string;
  name: string;
}

/** The work queue's key of a request: `namespace/name`, or `name` for cluster-scoped objects (the cache's key of the object too). */
export function requestKey(request: Request): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

/** Parses a key made by {@link requestKey} (or the cache's `objectKey`). */
export function parseKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The request that reconciles `object` itself. */
export function requestFor(object: KubernetesObject): Request {
  const meta = object.metadata ?? {};
  return { namespace: meta.namespace ?? '', name: meta.name ?? '' };
}
