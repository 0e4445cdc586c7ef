import type { KubernetesObject } from '../client/types/meta.js';
import type { ObjectReference, OwnerReference } from '../../api/index.js';
import { apiVersionOf, type ResourceType } from '../client/resource/options.js';
import { metaOf } from '../cache/object-meta.js';
import { groupOf } from './event-handlers.js';

/** The object already has a controller reference to a different owner. */
export class AlreadyOwnedError extends Error {
  constructor(object: string, existing: OwnerReference) {
    super(`${object} is already controlled by ${existing.kind} ${existing.name} (uid ${existing.uid})`);
    this.name = 'AlreadyOwnedError';
  }
}

function describe(object: KubernetesObject): string {
  const meta = metaOf(object);
  return `${object.kind ?? 'object'} ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name ?? ''}`;
}

function referenceTo(owner: KubernetesObject): OwnerReference {
  const meta = metaOf(owner);
  if (!owner.apiVersion || !owner.kind || !meta.name || !meta.uid) {
    throw new TypeError(
      `owner ${describe(owner)} needs apiVersion, kind, metadata.name and metadata.uid (read it from the API first)`,
    );
  }
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: meta.name, uid: meta.uid };
}

function checkScope(owner: KubernetesObject, object: KubernetesObject): void {
  const ownerNs = metaOf(owner).namespace ?? '';
  const objectNs = metaOf(object).namespace ?? '';
  if (ownerNs && ownerNs !== objectNs) {
    throw new TypeError(
      `${describe(owner)} cannot own ${describe(object)}: a namespaced owner must be in the same namespace`,
    );
  }
}

function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

/**
 * Makes `owner` the controller of `object` (in place): an ownerReference with `controller: true`
 * and `blockOwnerDeletion: true`, so garbage collection deletes `object` with its owner and
 * `owns()` watches route its events to the owner. Throws {@link AlreadyOwnedError} when another
 * object controls it.
 */
export function setControllerReference<O extends KubernetesObject>(owner: KubernetesObject, object: O): O {
  checkScope(owner, object);
  const ref: OwnerReference = { ...referenceTo(owner), controller: true, blockOwnerDeletion: true };
  const meta = (object.metadata ??= {}) as ReturnType<typeof metaOf>;
  const refs = meta.ownerReferences ?? [];
  const existing = refs.find((r) => r.controller === true);
  if (existing && !sameOwner(existing, ref)) throw new AlreadyOwnedError(describe(object), existing);
  meta.ownerReferences = [...refs.filter((r) => !sameOwner(r, ref)), ref];
  return object;
}

/** Adds (or refreshes) a non-controller ownerReference to `owner` on `object`, in place. */
export function setOwnerReference<O extends KubernetesObject>(owner: KubernetesObject, object: O): O {
  checkScope(owner, object);
  const ref = referenceTo(owner);
  const meta = (object.metadata ??= {}) as ReturnType<typeof metaOf>;
  const refs = meta.ownerReferences ?? [];
  const existing = refs.find((r) => sameOwner(r, ref));
  meta.ownerReferences = [
    ...refs.filter((r) => !sameOwner(r, ref)),
    { ...ref, controller: existing?.controller, blockOwnerDeletion: existing?.blockOwnerDeletion },
  ];
  return object;
}

/** The controller ownerReference of `object`, if any. */
export function getControllerOf(object: KubernetesObject): OwnerReference | undefined {
  return metaOf(object).ownerReferences?.find((r) => r.controller === true);
}

/**
 * A reference to `object` (apiVersion, kind, namespace, name, uid, resourceVersion), as a status
 * lists the objects it tracks (a CronJob's `active` Jobs) or an event names its subject.
 * `apiVersion` and `kind` come from the object, or from `type` for an object read without them;
 * a reference that could not be followed back is refused rather than written.
 */
export function getReference(object: KubernetesObject, type?: ResourceType): ObjectReference {
  const meta = metaOf(object);
  const apiVersion = object.apiVersion ?? (type && apiVersionOf(type));
  const kind = object.kind ?? type?.kind;
  if (!apiVersion || !kind) {
    throw new TypeError(
      `${describe(object)} has no apiVersion or kind: pass its ResourceType as getReference's second argument`,
    );
  }
  if (!meta.name) throw new TypeError(`${describe(object)} has no metadata.name to refer to`);
  const reference: ObjectReference = { apiVersion, kind, name: meta.name };
  if (meta.namespace) reference.namespace = meta.namespace;
  if (meta.uid) reference.uid = meta.uid;
  if (meta.resourceVersion) reference.resourceVersion = meta.resourceVersion;
  return reference;
}
