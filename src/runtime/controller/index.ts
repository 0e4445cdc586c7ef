// kop/runtime/controller: controllers and the reconciler's helpers (controller-runtime's builder,
// handler, predicate and controllerutil packages), beside those every reconciler uses, which are
// on kop/runtime only (Reconciler, finalizer, createOrUpdate, setCondition, ...).
export { Controller, type ControllerOptions, type ReconcileFunction } from './controller.js';
export { ControllerBuilder, type ForOptions } from './builder.js';
export { mapToControllerOwner, mapToSelf, type MapFunction } from './event-handlers.js';
export {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  matching,
  not,
  or,
  resourceVersionChanged,
  type Predicate,
} from './predicates.js';
export { findCondition, isConditionTrue, removeCondition, type ConditionInput } from './conditions.js';
export { AlreadyOwnedError, getControllerOf, getReference, setOwnerReference } from './owner-references.js';
