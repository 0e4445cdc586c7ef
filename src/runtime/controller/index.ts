// The controller side of kop/runtime: work queue, informers and cache, controllers, manager,
// leader election, metrics, health, logging, and reconciler helpers.
export { systemClock, type Clock, type CancelTimer } from './clock.js';
export * from './rate-limiter.js';
export * from './work-queue.js';
export * from './object-meta.js';
export * from './indexer.js';
export * from './lister.js';
export * from './label-selector.js';
export * from './informer.js';
export * from './predicates.js';
export * from './event-handlers.js';
export * from './logger.js';
export * from './metrics.js';
export * from './controller.js';
export * from './builder.js';
export * from './leader-election.js';
export * from './http-server.js';
export * from './manager.js';
export * from './owner-references.js';
export * from './finalizers.js';
export * from './conditions.js';
export * from './event-recorder.js';
export * from './create-or-update.js';
