// The controller side of kop/runtime: work queue, informers and cache, controllers, manager,
// leader election, metrics, health, logging, and reconciler helpers.
export { systemClock, type Clock, type CancelTimer } from '../util/clock.js';
export * from '../queue/rate-limiter.js';
export * from '../queue/work-queue.js';
export * from '../cache/object-meta.js';
export * from '../cache/indexer.js';
export * from '../cache/lister.js';
export * from '../cache/label-selector.js';
export * from '../cache/informer.js';
export * from './predicates.js';
export * from './event-handlers.js';
export * from '../util/logger.js';
export * from '../manager/metrics.js';
export * from './controller.js';
export * from './builder.js';
export * from '../manager/leader-election.js';
export * from '../manager/http-server.js';
export * from '../manager/manager.js';
export * from './owner-references.js';
export * from './finalizers.js';
export * from './conditions.js';
export * from './event-recorder.js';
export * from './create-or-update.js';
