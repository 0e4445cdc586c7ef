import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import { TokenBucket } from '../util/token-bucket.js';

/** Decides how long a key waits before it is retried. */
export interface RateLimiter {
  /** Delay in milliseconds before `key` may be processed again; records one more failure for it. */
  when(key: string): number;
  /** Clears the failure history of `key` (call after a success). */
  forget(key: string): void;
  /** How many times `key` has been rate limited since it was last forgotten. */
  numRequeues(key: string): number;
}

/** Options of {@link ExponentialBackoffRateLimiter}. */
export interface ExponentialBackoffOptions {
  /** Delay after the first failure (default 5 ms). */
  baseDelayMs?: number;
  /** Upper bound of the delay (default 1000 s). */
  maxDelayMs?: number;
}

/** Per-key exponential backoff: base, 2·base, 4·base, … capped at maxDelay. */
export class ExponentialBackoffRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(options: ExponentialBackoffOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 1_000_000;
  }

  when(key: string): number {
    const previous = this.failures.get(key) ?? 0;
    this.failures.set(key, previous + 1);
    // Cap the exponent first so huge failure counts never overflow to Infinity/NaN.
    const delay = this.baseDelayMs * 2 ** Math.min(previous, 62);
    return Math.min(delay, this.maxDelayMs);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** Options of {@link TokenBucketRateLimiter}. */
export interface TokenBucketOptions {
  /** Tokens added per second (default 10). */
  ratePerSecond?: number;
  /** Bucket size: how many retries may happen at once (default 100). */
  burst?: number;
  clock?: Clock;
}

/**
 * Overall retry budget shared by all keys: a token bucket where each retry
 * reserves one token and waits until that token has accrued.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private readonly bucket: TokenBucket;

  constructor(options: TokenBucketOptions = {}) {
    const clock = options.clock ?? systemClock;
    this.bucket = new TokenBucket(options.ratePerSecond ?? 10, options.burst ?? 100, () => clock.now());
  }

  when(): number {
    // A negative balance is debt: the reservation is usable once it has been paid back.
    return this.bucket.reserve();
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

/** Combines limiters: the delay is the longest any of them asks for. */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    let delay = 0;
    for (const limiter of this.limiters) delay = Math.max(delay, limiter.when(key));
    return delay;
  }

  forget(key: string): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  numRequeues(key: string): number {
    let count = 0;
    for (const limiter of this.limiters) count = Math.max(count, limiter.numRequeues(key));
    return count;
  }
}

/** Options of {@link defaultControllerRateLimiter}. */
export interface ControllerRateLimiterOptions extends ExponentialBackoffOptions, TokenBucketOptions {}

/** Per-key exponential backoff (5 ms … 1000 s) combined with an overall 10 qps / 100 burst bucket. */
export function defaultControllerRateLimiter(options: ControllerRateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(new ExponentialBackoffRateLimiter(options), new TokenBucketRateLimiter(options));
}
