import type { KubernetesObject, ObjectMetaFields } from '../client/index.js';

/** meta/v1 OwnerReference: who owns an object, and whether that owner is its controller. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The metadata fields the controller machinery reads beyond what the client needs. */
export interface ControllerObjectMeta extends ObjectMetaFields {
  ownerReferences?: OwnerReference[];
  deletionTimestamp?: string;
  creationTimestamp?: string;
}

/** What a request to reconcile names: one object. `namespace` is '' for cluster-scoped kinds. */
export interface Request {
  namespace: string;
  name: string;
}

/** The metadata of any object, typed with the fields controllers use. */
export function metaOf(object: KubernetesObject): ControllerObjectMeta {
  return (object.metadata ?? {}) as ControllerObjectMeta;
}

/** Cache key of an object: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(object: KubernetesObject): string {
  const meta = metaOf(object);
  if (!meta.name) throw new TypeError(`${object.kind ?? 'object'} without metadata.name cannot be cached`);
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}

/** The key of a request, in the same form as {@link objectKey}. */
export function requestKey(request: Request): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

/** Parses a key made by {@link objectKey} or {@link requestKey}. */
export function parseKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The request that reconciles `object` itself. */
export function requestFor(object: KubernetesObject): Request {
  const meta = metaOf(object);
  return { namespace: meta.namespace ?? '', name: meta.name ?? '' };
}
