// kop/runtime/queue: the keyed, rate-limited work queue controllers run on, and its rate limiters
// (client-go's workqueue package).
export { WorkQueue, type WorkQueueInFlightProbe, type WorkQueueMetrics, type WorkQueueOptions } from './work-queue.js';
export {
  ExponentialBackoffRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
  defaultControllerRateLimiter,
  type ControllerRateLimiterOptions,
  type ExponentialBackoffOptions,
  type RateLimiter,
  type TokenBucketOptions,
} from './rate-limiter.js';
export type { CancelTimer, Clock } from '../util/clock.js';
