// Manager defaults that follow controller-runtime's.
import { describe, expect, it } from 'vitest';
import { Manager, silentLogger } from '../../../src/runtime/index.js';
import { RestClient } from '../../../src/runtime/client/index.js';
import { widgetResource } from './helpers.js';

const HOUR = 3_600_000;

function manager(options: ConstructorParameters<typeof Manager>[0] = {}): Manager {
  // No request is made: informers are only created, never started.
  const server = 'https://127.0.0.1:1';
  const rest = new RestClient({
    server,
    context: 'test',
    cluster: { name: 'test', server },
    user: { name: '' },
    source: 'explicit',
  } as never);
  return new Manager({ rest, logger: silentLogger, metricsBindAddress: '0', healthProbeBindAddress: '0', ...options });
}

describe('manager defaults', () => {
  it('informers resync every 10 to 11 hours unless told otherwise (controller-runtime SyncPeriod, jittered)', () => {
    const periods = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const period = manager().informerFor(widgetResource).resyncPeriodMs;
      expect(period).toBeGreaterThanOrEqual(10 * HOUR);
      expect(period).toBeLessThanOrEqual(11 * HOUR);
      periods.add(period);
    }
    expect(periods.size).toBeGreaterThan(1);
    expect(manager({ informerDefaults: { resyncPeriodMs: 0 } }).informerFor(widgetResource).resyncPeriodMs).toBe(0);
    expect(manager({ informerDefaults: { resyncPeriodMs: 60_000 } }).informerFor(widgetResource).resyncPeriodMs).toBe(
      60_000,
    );
  });
});
