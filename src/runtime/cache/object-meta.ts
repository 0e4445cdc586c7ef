import type { ObjectMeta } from '../../api/index.js';
import type { KubernetesObject } from '../client/types/meta.js';

/** The metadata of any object (kop/api's meta/v1 ObjectMeta), empty when the object has none. */
export function metaOf(object: KubernetesObject): ObjectMeta {
  return object.metadata ?? {};
}

/** Cache key of an object: `namespace/name`, or `name` for cluster-scoped objects (a reconcile request's key has the same form). */
export function objectKey(object: KubernetesObject): string {
  const meta = metaOf(object);
  if (!meta.name) throw new TypeError(`${object.kind ?? 'object'} without metadata.name cannot be cached`);
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}
