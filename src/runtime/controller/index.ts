// kop/runtime/controller: controllers and the reconciler's helpers (controller-runtime's builder,
// handler, predicate and controllerutil packages). The ones every reconciler uses are also on kop/runtime.
export {
  Controller,
  TerminalError,
  type ControllerMetrics,
  type ControllerOptions,
  type ReconcileContext,
  type ReconcileFunction,
  type ReconcileOutcome,
  type ReconcileResult,
  type Reconciler,
} from './controller.js';
export { ControllerBuilder, type ControllerHost, type ForOptions } from './builder.js';
export { mapToControllerOwner, mapToSelf, type MapFunction, type OwnerKind } from './event-handlers.js';
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
export {
  addFinalizer,
  finalizer,
  hasFinalizer,
  isBeingDeleted,
  removeFinalizer,
  type FinalizerHandlers,
} from './finalizers.js';
export {
  findCondition,
  isConditionTrue,
  removeCondition,
  setCondition,
  type Condition,
  type ConditionInput,
} from './conditions.js';
export { AlreadyOwnedError, getControllerOf, setControllerReference, setOwnerReference } from './owner-references.js';
export { createOrUpdate, type CreateOrUpdateOperation } from './create-or-update.js';
export { EventRecorder, type EventInput, type EventType } from './event-recorder.js';
