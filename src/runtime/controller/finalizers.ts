import type { Client } from '../client/client.js';
import type { KubernetesObject } from '../client/types/meta.js';
import type { Patch, ResourceType } from '../client/resource/options.js';
import { isConflict, isInvalid, isNotFound } from '../client/errors/api-error.js';
import type { ReconcileResult } from './controller.js';
import { metaOf } from '../cache/object-meta.js';

/** What the finalizer helpers need of a client: a fresh read and a patch of one object. */
interface ObjectEditor<T extends KubernetesObject> {
  get(name: string): Promise<T>;
  patch(name: string, patch: Patch<T>): Promise<T>;
}

/**
 * The client's view of one object's kind and namespace. The re-read after a refused patch is
 * live: the cache may not have seen the change that made the patch fail yet.
 */
function editorOf<T extends KubernetesObject>(client: Client, type: ResourceType<T>, object: T): ObjectEditor<T> {
  const namespace = object.metadata?.namespace ?? undefined;
  return {
    get: (name) => client.get(type, { namespace, name }, { live: true }),
    patch: (name, patch) => client.patch(type, { namespace, name }, patch),
  };
}

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
export async function addFinalizer<T extends KubernetesObject>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  return editFinalizers(editorOf(client, type, object), object, (list) =>
    list.includes(finalizer) ? undefined : [...list, finalizer],
  );
}

/**
 * Removes `finalizer` the same way; once the last finalizer is gone a deleted object disappears.
 * An object that is already gone needs no removal: its last known state is returned without the
 * finalizer instead of a NotFound error (another reconcile or a person may have removed it first).
 */
export async function removeFinalizer<T extends KubernetesObject>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  const without = (list: string[]): string[] | undefined =>
    list.includes(finalizer) ? list.filter((f) => f !== finalizer) : undefined;
  try {
    return await editFinalizers(editorOf(client, type, object), object, without);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const finalizers = without(metaOf(object).finalizers ?? []) ?? metaOf(object).finalizers;
    return { ...object, metadata: { ...object.metadata, finalizers } };
  }
}

async function editFinalizers<T extends KubernetesObject>(
  client: ObjectEditor<T>,
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

/** What {@link finalizer} runs: `apply` while the object lives, `cleanup` once its deletion was asked for. */
export interface FinalizerHandlers<T extends KubernetesObject> {
  /** Brings the world in line with the object (it carries the finalizer by now). */
  apply(object: T): Promise<ReconcileResult> | ReconcileResult;
  /** Cleans up what the object leaves outside the cluster; the finalizer is removed once it returns. */
  cleanup(object: T): Promise<ReconcileResult> | ReconcileResult;
}

/**
 * Runs a reconcile under a finalizer, as kube-rs's `finalizer()`: a live object first gets the
 * finalizer (so its deletion always waits for `cleanup`), then `apply` runs; an object being
 * deleted that still carries the finalizer gets `cleanup`, then the finalizer is removed and the
 * object can go. An object being deleted without it is left alone. Throwing from either handler
 * keeps the finalizer in place, and the reconcile is retried.
 */
export async function finalizer<T extends KubernetesObject>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  name: string,
  handlers: FinalizerHandlers<T>,
): Promise<ReconcileResult> {
  if (isBeingDeleted(object)) {
    if (!hasFinalizer(object, name)) return undefined;
    const result = await handlers.cleanup(object);
    await removeFinalizer(client, type, object, name);
    return result;
  }
  const withFinalizer = hasFinalizer(object, name) ? object : await addFinalizer(client, type, object, name);
  return handlers.apply(withFinalizer);
}
