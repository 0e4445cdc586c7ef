/**
 * kop/runtime: what an operator's main.ts, its reconcilers and its webhooks use, and nothing else
 * (kube-rs's root re-exports a dozen names the same way). Everything else lives under subpaths
 * named like controller-runtime's packages: kop/runtime/builtin (the descriptors of the built-in
 * kinds, named by group and version), kop/runtime/client (the REST client, its configuration,
 * list options, the dynamic client, more error predicates), kop/runtime/cache (informers,
 * listers), kop/runtime/queue (rate limiters), kop/runtime/controller (controllers, builder,
 * handlers, predicates, more helpers), kop/runtime/manager (leader election, metrics, logging)
 * and kop/runtime/webhook (the webhook server, admission and conversion). The object types
 * (ObjectMeta, Condition, OwnerReference, the built-in kinds) are kop/api's.
 * test/api/reports/ holds the report of every entry point; a change of the surface changes it.
 */

// Running controllers.
export { Manager, GracefulShutdownTimeoutError, type ManagerOptions } from './manager/manager.js';
export { createLogger, silentLogger, type Logger } from './util/logger.js';

// The one client and the descriptors that name the kinds it reads and writes.
export type { ApplyOptions, Client, ObjectKey } from './client/client.js';
export type { Patch, ResourceType } from './client/resource/options.js';
export type { KubernetesObject, ObjectList } from './client/types/meta.js';
export { ApiError, isAlreadyExists, isConflict, isInvalid, isNotFound } from './client/errors/api-error.js';

// Reconciling.
export {
  TerminalError,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
} from './controller/controller.js';
export type { Request } from './controller/request.js';
export {
  addFinalizer,
  finalizer,
  hasFinalizer,
  isBeingDeleted,
  removeFinalizer,
  type FinalizerHandlers,
} from './controller/finalizers.js';
export { createOrUpdate } from './controller/create-or-update.js';
export { setControllerReference } from './controller/owner-references.js';
export { setCondition } from './controller/conditions.js';
export type { EventRecorder } from './controller/event-recorder.js';

// Webhooks: what a defaulter and a validator use (registered with manager.webhook).
export { FieldError, ValidationError } from './webhook/field-error.js';
export type { AdmissionContext, AdmissionWarnings, Defaulter, Validator } from './webhook/admission.js';
