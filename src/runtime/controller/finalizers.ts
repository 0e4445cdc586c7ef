import type { KubernetesObject, ResourceClient } from '../client/index.js';
import { isConflict, isInvalid, isNotFound } from '../client/index.js';
import { metaOf } from './object-meta.js';

/** True when `object` carries `finalizer`. */
export function hasFinalizer(object: KubernetesObject, finalizer: string): boolean {
  return metaOf(object).finalizers?.includes(finalizer) ?? false;
}

/** True once deletion was requested (metadata.deletionTimestamp is set); finalizers are then running. */
export function isBeingDeleted(object: KubernetesObject): boolean {
  return Boolean(metaOf(object).deletionTimestamp);
}

const ATTEMPTS = 5;

/**
 * Adds `finalizer` through a JSON Patch whose `test` op pins the finalizer list it was computed
 * from, so a concurrent change to the list (another controller's finalizer) is never lost: the
 * patch fails and is recomputed from a fresh read. Returns the patched object (or `object` when
 * the finalizer was already there).
 */
export async function addFinalizer<T extends KubernetesObject>(client: ResourceClient<T>, object: T, finalizer: string): Promise<T> {
  return editFinalizers(client, object, (list) => (list.includes(finalizer) ? undefined : [...list, finalizer]));
}

/**
 * Removes `finalizer` the same way; once the last finalizer is gone a deleted object disappears.
 * An object that is already gone needs no removal: its last known state is returned without the
 * finalizer instead of a NotFound error (another reconcile or a person may have removed it first).
 */
export async function removeFinalizer<T extends KubernetesObject>(client: ResourceClient<T>, object: T, finalizer: string): Promise<T> {
  const without = (list: string[]): string[] | undefined => (list.includes(finalizer) ? list.filter((f) => f !== finalizer) : undefined);
  try {
    return await editFinalizers(client, object, without);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const finalizers = without(metaOf(object).finalizers ?? []) ?? metaOf(object).finalizers;
    return { ...object, metadata: { ...object.metadata, finalizers } };
  }
}

async function editFinalizers<T extends KubernetesObject>(
  client: ResourceClient<T>,
  object: T,
  change: (list: string[]) => string[] | undefined,
): Promise<T> {
  const name = metaOf(object).name;
  if (!name) throw new TypeError('finalizers: the object needs metadata.name');
  let current = object;
  for (let attempt = 1; ; attempt++) {
    const list = metaOf(current).finalizers;
    const next = change(list ?? []);
    if (!next) return current;
    const operations =
      list === undefined
        ? // No list yet: `test` against null only passes while the field is still absent.
          [
            { op: 'test' as const, path: '/metadata/finalizers', value: null },
            { op: 'add' as const, path: '/metadata/finalizers', value: next },
          ]
        : [
            { op: 'test' as const, path: '/metadata/finalizers', value: list },
            { op: 'replace' as const, path: '/metadata/finalizers', value: next },
          ];
    try {
      return await client.patch(name, { type: 'json', operations });
    } catch (err) {
      // A failed `test` is answered 422 (or 409 on some servers): the list moved, read it again.
      if (attempt >= ATTEMPTS || !(isInvalid(err) || isConflict(err))) throw err;
      current = await client.get(name);
      // The list is what we tested against, so the 422 was a refusal (no new finalizers on an
      // object being deleted, a malformed name), which retrying cannot change.
      if (sameList(metaOf(current).finalizers, list)) throw err;
    }
  }
}

function sameList(a: string[] | undefined, b: string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
