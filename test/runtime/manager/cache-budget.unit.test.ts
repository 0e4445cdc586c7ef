import { describe, expect, it } from 'vitest';
import type { InformerStats } from '../../../src/runtime/cache/informer.js';
import type { Logger } from '../../../src/runtime/util/logger.js';
import { CacheMemoryBudget, formatBytes } from '../../../src/runtime/manager/cache-budget.js';

const MiB = 1024 * 1024;

function stats(name: string, bytes: number, objects = 10): InformerStats {
  return { name, objects, bytes, relists: 0, lastSyncTime: 0, lastListMethod: 'streaming', synced: true };
}

/** A logger that keeps the warnings. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger & { warnings: string[] } = {
    warnings,
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => warnings.push(message),
    error: () => undefined,
    child: () => logger,
  };
  return logger;
}

describe('cache memory budget', () => {
  it('warns once per crossing of the byte budget, naming the largest informers first', () => {
    let informers = [stats('ConfigMap.core', 40 * MiB, 4000), stats('Pod.core', 50 * MiB, 900), stats('Lease', 1)];
    const logger = recordingLogger();
    const heap = { used: 10 * MiB, limit: 1000 * MiB };
    const budget = new CacheMemoryBudget(
      { bytes: 100 * MiB },
      () => informers,
      logger,
      () => heap,
    );

    budget.check();
    expect(logger.warnings).toEqual([]);

    informers = [stats('ConfigMap.core', 60 * MiB, 6000), stats('Pod.core', 50 * MiB, 900), stats('Lease', 1)];
    budget.check();
    budget.check();
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toBe(
      'informer caches hold an estimated 110.0 MiB, over the cache memory budget of 100.0 MiB; largest: ConfigMap.core 60.0 MiB (6000 objects), Pod.core 50.0 MiB (900 objects), Lease 1 B (10 objects)',
    );

    // Just under the budget is not a new crossing (no warning per wobble)...
    informers = [stats('ConfigMap.core', 49 * MiB), stats('Pod.core', 50 * MiB)];
    budget.check();
    informers = [stats('ConfigMap.core', 60 * MiB), stats('Pod.core', 50 * MiB)];
    budget.check();
    expect(logger.warnings).toHaveLength(1);

    // ...falling well below and passing again is.
    informers = [stats('Pod.core', 50 * MiB)];
    budget.check();
    informers = [stats('Pod.core', 101 * MiB)];
    budget.check();
    expect(logger.warnings).toHaveLength(2);
    expect(logger.warnings[1]).toContain('largest: Pod.core 101.0 MiB');
  });

  it('warns when the heap nears its limit, also without a byte budget', () => {
    const logger = recordingLogger();
    const heap = { used: 800 * MiB, limit: 1000 * MiB };
    const budget = new CacheMemoryBudget(
      {},
      () => [stats('Secret.core', 300 * MiB, 70)],
      logger,
      () => heap,
    );
    budget.check();
    expect(logger.warnings).toEqual([]);
    heap.used = 860 * MiB;
    budget.check();
    budget.check();
    expect(logger.warnings).toEqual([
      'the heap uses 860.0 MiB of its 1000.0 MiB limit (over 85%); the process may soon run out of memory; largest informer caches: Secret.core 300.0 MiB (70 objects)',
    ]);
  });

  it.each([
    { given: { bytes: 0 }, want: 'cacheMemoryBudget.bytes must be a positive number, not 0' },
    { given: { bytes: Number.NaN }, want: 'cacheMemoryBudget.bytes must be a positive number, not NaN' },
    { given: { checkIntervalMs: -5 }, want: 'cacheMemoryBudget.checkIntervalMs must be a positive number, not -5' },
    { given: { heapFraction: 1.5 }, want: 'cacheMemoryBudget.heapFraction must be in (0, 1], not 1.5' },
  ])('refuses $given', ({ given, want }) => {
    expect(() => new CacheMemoryBudget(given, () => [], recordingLogger())).toThrow(want);
  });

  it('formats bytes in binary units', () => {
    expect([formatBytes(512), formatBytes(2048), formatBytes(3.5 * MiB), formatBytes(5 * 1024 * MiB)]).toEqual([
      '512 B',
      '2.0 KiB',
      '3.5 MiB',
      '5.0 GiB',
    ]);
  });
});
