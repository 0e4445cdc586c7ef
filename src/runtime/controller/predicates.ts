import type { KubernetesObject } from '../client/types/meta.js';
import { metaOf } from '../cache/object-meta.js';

/**
 * Filters events before they enqueue anything. A missing method lets that event type through.
 * Predicates only save work: reconcilers stay level-based and must not depend on seeing an event.
 */
export interface Predicate<T extends KubernetesObject = KubernetesObject> {
  create?(object: T): boolean;
  update?(oldObject: T, newObject: T): boolean;
  delete?(object: T): boolean;
}

/** Passes updates that change `metadata.generation` (spec changes; status-only writes are skipped). */
export function generationChanged<T extends KubernetesObject>(): Predicate<T> {
  return { update: (a, b) => metaOf(a).generation !== metaOf(b).generation };
}

/** Passes updates that change the labels. */
export function labelsChanged<T extends KubernetesObject>(): Predicate<T> {
  return { update: (a, b) => !sameRecord(metaOf(a).labels, metaOf(b).labels) };
}

/** Passes updates that change the annotations. */
export function annotationsChanged<T extends KubernetesObject>(): Predicate<T> {
  return { update: (a, b) => !sameRecord(metaOf(a).annotations, metaOf(b).annotations) };
}

/** Passes updates that change the resourceVersion (drops resync replays). */
export function resourceVersionChanged<T extends KubernetesObject>(): Predicate<T> {
  return { update: (a, b) => metaOf(a).resourceVersion !== metaOf(b).resourceVersion };
}

/** Passes any event whose object (the new one for updates) satisfies `test`. */
export function matching<T extends KubernetesObject>(test: (object: T) => boolean): Predicate<T> {
  return { create: test, update: (_old, object) => test(object), delete: test };
}

/** Passes an event only when every predicate does. */
export function and<T extends KubernetesObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => predicates.every((p) => p.create?.(o) ?? true),
    update: (a, b) => predicates.every((p) => p.update?.(a, b) ?? true),
    delete: (o) => predicates.every((p) => p.delete?.(o) ?? true),
  };
}

/** Passes an event when any predicate does. */
export function or<T extends KubernetesObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => predicates.some((p) => p.create?.(o) ?? true),
    update: (a, b) => predicates.some((p) => p.update?.(a, b) ?? true),
    delete: (o) => predicates.some((p) => p.delete?.(o) ?? true),
  };
}

/** Inverts a predicate. */
export function not<T extends KubernetesObject>(predicate: Predicate<T>): Predicate<T> {
  return {
    create: (o) => !(predicate.create?.(o) ?? true),
    update: (a, b) => !(predicate.update?.(a, b) ?? true),
    delete: (o) => !(predicate.delete?.(o) ?? true),
  };
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const left = a ?? {};
  const right = b ?? {};
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(right, key) && left[key] === right[key]);
}
