/**
 * kop/runtime: what an operator's main.ts and its reconcilers use. Advanced pieces live under
 * subpaths named like controller-runtime's packages: kop/runtime/client (REST client,
 * configuration, resource, dynamic and discovery clients), kop/runtime/cache (informers,
 * listers), kop/runtime/queue (work queue, rate limiters), kop/runtime/controller (controllers,
 * builder, handlers), kop/runtime/manager (leader election, metrics, logging) and
 * kop/runtime/webhook (the webhook server, admission and conversion handlers).
 * test/api/reports/ holds the report of every entry point; a change of the surface changes it.
 */

// Running controllers.
export {
  Manager,
  GracefulShutdownTimeoutError,
  LeaderElectionLostError,
  type ManagerOptions,
} from './manager/manager.js';
export { createLogger, silentLogger, type LogFields, type Logger } from './util/logger.js';

// The one client and the kinds it reads and writes.
export { createClient, type ApplyOptions, type Client, type ObjectKey } from './client/client.js';
export type { ObjectOf, Patch, ResourceType } from './client/resource/options.js';
export type { KubernetesObject, ObjectList } from './client/types/meta.js';
export * from './client/typed/builtin-types.js';
export { RestClient, type RestClientOptions } from './client/rest/rest-client.js';
export { loadClientConfig } from './client/config/client-config.js';
export {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
} from './client/errors/api-error.js';
export { retryOnConflict } from './client/retry/retry-on-conflict.js';

// Reconciling.
export {
  TerminalError,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
} from './controller/controller.js';
export type { Request } from './cache/object-meta.js';
export { CacheNotSyncedError, CacheScopeError } from './cache/lister.js';
export {
  addFinalizer,
  finalizer,
  hasFinalizer,
  isBeingDeleted,
  removeFinalizer,
  type FinalizerHandlers,
} from './controller/finalizers.js';
export { createOrUpdate } from './controller/create-or-update.js';
export { AlreadyOwnedError, setControllerReference } from './controller/owner-references.js';
export {
  findCondition,
  isConditionTrue,
  removeCondition,
  setCondition,
  type Condition,
} from './controller/conditions.js';
export {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  matching,
  not,
  or,
  type Predicate,
} from './controller/predicates.js';
export type { EventRecorder } from './controller/event-recorder.js';

// Webhooks: what a defaulter, a validator and a conversion use (registered with manager.webhook and manager.conversion).
export { FieldError, ValidationError } from './webhook/field-error.js';
export type { AdmissionContext, AdmissionWarnings, Defaulter, Validator } from './webhook/admission.js';
export type { SpokeConversion } from './webhook/conversion.js';
