// kop/runtime/queue: the rate limiters a controller's work queue backs off with (client-go's
// workqueue package); `ControllerOptions.rateLimiter` takes one. The queue itself is the controller's.
export {
  ExponentialBackoffRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
} from './rate-limiter.js';
