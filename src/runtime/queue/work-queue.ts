import type { CancelTimer, Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import type { RateLimiter } from './rate-limiter.js';
import { defaultControllerRateLimiter } from './rate-limiter.js';

/** Observations a {@link WorkQueue} reports; wire them to metrics. All optional. */
export interface WorkQueueMetrics {
  /** Current number of keys waiting to be handed out. */
  depth?(depth: number): void;
  /** A key was accepted by `add` (not counted when it was already waiting). */
  added?(): void;
  /** Seconds a key waited between being queued and being handed to a worker. */
  queueLatency?(seconds: number): void;
  /** Seconds a worker held a key, from `get` to `done`. */
  workDuration?(seconds: number): void;
  /** A key was re-added with a delay (`addAfter`, and so `addRateLimited`), as client-go counts retries. */
  retried?(): void;
  /** Called once with the queue's in-flight probe, which metrics read at scrape time. */
  inFlight?(probe: WorkQueueInFlightProbe): void;
}

/** Live figures about the keys workers hold now. */
export interface WorkQueueInFlightProbe {
  /** Seconds of work done so far by all keys in flight, summed. */
  unfinishedWorkSeconds(): number;
  /** Seconds the longest-running key in flight has been held. */
  longestRunningProcessorSeconds(): number;
}

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  rateLimiter?: RateLimiter;
  clock?: Clock;
  metrics?: WorkQueueMetrics;
}

/**
 * A keyed work queue with the semantics controllers rely on:
 * - a key waiting in the queue is stored once, however often it is added (de-duplication);
 * - a key being processed is never handed to a second worker; adds made meanwhile
 *   mark it dirty and it is queued again when the first worker calls `done`;
 * - `addAfter` delays a key, keeping the earliest of several pending delays;
 * - `addRateLimited` delays by the rate limiter (per-key backoff, overall budget), `forget` resets it;
 * - `shutDown` stops accepting keys and stops handing out work; `shutDownWithDrain`
 *   additionally waits until every key handed out has been marked done.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly queuedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  /** How long each key in flight waited in the queue, in ms (the reconcile span reports it). */
  private readonly waitedMs = new Map<string, number>();
  private readonly waiting = new Map<string, { readyAt: number; cancel: CancelTimer }>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private readonly rateLimiter: RateLimiter;
  private readonly clock: Clock;
  private readonly metrics: WorkQueueMetrics;
  private shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter({ clock: this.clock });
    this.metrics = options.metrics ?? {};
    this.metrics.inFlight?.({
      unfinishedWorkSeconds: () => {
        const now = this.clock.now();
        let total = 0;
        for (const started of this.startedAt.values()) total += now - started;
        return total / 1000;
      },
      longestRunningProcessorSeconds: () => {
        let oldest = Infinity;
        for (const started of this.startedAt.values()) oldest = Math.min(oldest, started);
        return oldest === Infinity ? 0 : (this.clock.now() - oldest) / 1000;
      },
    });
  }

  /** Queues `key` now unless it is already waiting. */
  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics.added?.();
    this.dirty.add(key);
    this.queuedAt.set(key, this.clock.now());
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Queues `key` after `delayMs`; an earlier pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    this.metrics.retried?.();
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const pending = this.waiting.get(key);
    if (pending && pending.readyAt <= readyAt) return;
    pending?.cancel();
    const cancel = this.clock.setTimer(() => {
      this.waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.waiting.set(key, { readyAt, cancel });
  }

  /** Queues `key` after the delay its rate limiter assigns (backoff on failure). */
  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Clears the backoff history of `key`; call when it was processed successfully. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  /** Number of rate-limited re-adds of `key` since it was last forgotten. */
  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /**
   * Waits for the next key and marks it as processing. Resolves `undefined` once the
   * queue is shut down; the caller must call `done(key)` for every key it receives.
   */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.handOut(key));
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks `key` finished; if it was added meanwhile it is queued again. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    this.waitedMs.delete(key);
    if (started !== undefined) this.metrics.workDuration?.((this.clock.now() - started) / 1000);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
    if (this.processing.size === 0) this.drainWaiters.splice(0).forEach((resolve) => resolve());
  }

  /** Stops accepting keys and handing out work; blocked `get` calls resolve `undefined`. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const { cancel } of this.waiting.values()) cancel();
    this.waiting.clear();
    this.getters.splice(0).forEach((resolve) => resolve(undefined));
  }

  /** Shuts down, then resolves when every key handed out so far has been marked done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** True after `shutDown`. */
  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Milliseconds `key`, now in flight, waited between being queued and handed out; undefined when not in flight. */
  queueWaitMs(key: string): number | undefined {
    return this.waitedMs.get(key);
  }

  /** Keys waiting to be handed out. */
  get length(): number {
    return this.queue.length;
  }

  /** Keys currently held by workers. */
  get processingCount(): number {
    return this.processing.size;
  }

  private push(key: string): void {
    const getter = this.getters.shift();
    if (getter) {
      getter(this.handOut(key));
      return;
    }
    this.queue.push(key);
    this.metrics.depth?.(this.queue.length);
  }

  private handOut(key: string): string {
    const now = this.clock.now();
    const queued = this.queuedAt.get(key);
    this.queuedAt.delete(key);
    if (queued !== undefined) {
      this.metrics.queueLatency?.((now - queued) / 1000);
      this.waitedMs.set(key, now - queued);
    }
    this.dirty.delete(key);
    this.processing.add(key);
    this.startedAt.set(key, now);
    this.metrics.depth?.(this.queue.length);
    return key;
  }
}
