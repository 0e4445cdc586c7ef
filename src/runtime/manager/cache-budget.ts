import v8 from 'node:v8';
import type { InformerStats } from '../cache/informer.js';
import type { Logger } from '../util/logger.js';
import type { Runnable } from './runnable-group.js';

/** `ManagerOptions.cacheMemoryBudget`: when to warn that the caches grow too big. */
export interface CacheMemoryBudgetOptions {
  /** Estimated bytes of all informer caches (the `kop_informer_cached_bytes` sum) past which to warn. */
  bytes?: number;
  /** Share of V8's heap limit (`--max-old-space-size`) in use past which to warn; default 0.85. */
  heapFraction?: number;
  /** How often both are checked; default 5 s (a large initial sync grows in seconds). */
  checkIntervalMs?: number;
}

/** What the budget reads of V8's heap. */
export interface HeapUse {
  used: number;
  limit: number;
}

/** A level must fall this far below its threshold before crossing it again warns again: a level that hovers warns once. */
const REARM_FRACTION = 0.9;

/**
 * Watches the caches against an optional budget: logs a warning once each time the estimated
 * bytes of all informers pass the budget, or the process heap passes a share of its limit, naming
 * the largest informers, so the operator learns which kind to trim (a selector, a transform, a
 * metadata-only watch) before the process is killed for its memory.
 */
export class CacheMemoryBudget implements Runnable {
  private overBytes = false;
  private overHeap = false;

  constructor(
    private readonly options: CacheMemoryBudgetOptions,
    private readonly informers: () => readonly InformerStats[],
    private readonly logger: Logger,
    private readonly heap: () => HeapUse = v8Heap,
  ) {
    for (const [name, value] of Object.entries({ bytes: options.bytes, checkIntervalMs: options.checkIntervalMs }))
      if (value !== undefined && !(Number.isFinite(value) && value > 0))
        throw new TypeError(`cacheMemoryBudget.${name} must be a positive number, not ${String(value)}`);
    const fraction = options.heapFraction;
    if (fraction !== undefined && !(fraction > 0 && fraction <= 1))
      throw new TypeError(`cacheMemoryBudget.heapFraction must be in (0, 1], not ${String(fraction)}`);
  }

  /** Checks every `checkIntervalMs` until `signal` aborts. */
  start(signal: AbortSignal): Promise<void> {
    this.check();
    const timer = setInterval(() => this.check(), this.options.checkIntervalMs ?? 5000);
    timer.unref();
    return new Promise((resolve) =>
      signal.addEventListener(
        'abort',
        () => {
          clearInterval(timer);
          resolve();
        },
        { once: true },
      ),
    );
  }

  /** Compares the caches and the heap with the budget now; warns on a crossing. */
  check(): void {
    const budget = this.options.bytes;
    const stats = this.informers();
    const total = stats.reduce((sum, s) => sum + s.bytes, 0);
    if (budget !== undefined) {
      if (!this.overBytes && total > budget) {
        this.overBytes = true;
        this.logger.warn(
          `informer caches hold an estimated ${formatBytes(total)}, over the cache memory budget of ${formatBytes(budget)}; largest: ${largest(stats)}`,
          { cachedBytes: total, budgetBytes: budget, informers: top(stats) },
        );
      } else if (this.overBytes && total < budget * REARM_FRACTION) this.overBytes = false;
    }
    const fraction = this.options.heapFraction ?? 0.85;
    const heap = this.heap();
    const threshold = heap.limit * fraction;
    if (!this.overHeap && heap.used > threshold) {
      this.overHeap = true;
      this.logger.warn(
        `the heap uses ${formatBytes(heap.used)} of its ${formatBytes(heap.limit)} limit (over ${Math.round(fraction * 100)}%); the process may soon run out of memory; largest informer caches: ${largest(stats)}`,
        { heapUsedBytes: heap.used, heapLimitBytes: heap.limit, cachedBytes: total, informers: top(stats) },
      );
    } else if (this.overHeap && heap.used < threshold * REARM_FRACTION) this.overHeap = false;
  }
}

function v8Heap(): HeapUse {
  const stats = v8.getHeapStatistics();
  return { used: stats.used_heap_size, limit: stats.heap_size_limit };
}

/** The three informers holding most, largest first. */
function top(stats: readonly InformerStats[]): Array<{ informer: string; objects: number; bytes: number }> {
  return [...stats]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 3)
    .map((s) => ({ informer: s.name, objects: s.objects, bytes: s.bytes }));
}

function largest(stats: readonly InformerStats[]): string {
  const named = top(stats).map((s) => `${s.informer} ${formatBytes(s.bytes)} (${s.objects} objects)`);
  return named.length > 0 ? named.join(', ') : 'no informers';
}

/** Bytes in the unit a reader takes in at a glance (MiB, GiB...). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
