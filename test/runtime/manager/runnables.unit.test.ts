// The manager's runnable groups where no cluster is read: a manager without kinds has an empty
// cache, so its groups run without an apiserver.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Logger, ManagerOptions } from '../../../src/runtime/index.js';
import { Manager } from '../../../src/runtime/index.js';
import { RestClient } from '../../../src/runtime/client/index.js';

function manager(options: ManagerOptions = {}): { manager: Manager; warnings: string[] } {
  // No request is made: the manager has no informer and no leader election.
  const server = 'https://127.0.0.1:1';
  const rest = new RestClient({
    server,
    context: 'test',
    cluster: { name: 'test', server },
    user: { name: '' },
    source: 'explicit',
  } as never);
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => void warnings.push(message),
    error: (message) => void warnings.push(message),
    child: () => logger,
  };
  return {
    manager: new Manager({ rest, logger, metricsBindAddress: '0', healthProbeBindAddress: '0', ...options }),
    warnings,
  };
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

describe('runnable groups without a cluster', () => {
  it('without leader election the gated runnables start right after the others, and stop before them', async () => {
    const { manager: m } = manager();
    const steps: string[] = [];
    const runnable = (name: string, needLeaderElection?: boolean) => ({
      needLeaderElection,
      start: async (signal: AbortSignal) => {
        steps.push(`${name} started`);
        await untilAborted(signal);
        await new Promise((resolve) => setTimeout(resolve, 50));
        steps.push(`${name} stopped`);
      },
    });
    m.add(runnable('gated (default)'));
    m.add(runnable('every replica', false));
    m.add(runnable('gated', true));
    const done = m.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(m.isLeader).toBe(true);
    await m.stop();
    await done;
    expect(steps).toEqual([
      'every replica started',
      'gated (default) started',
      'gated started',
      'gated (default) stopped',
      'gated stopped',
      'every replica stopped',
    ]);
  });

  it('a runnable that ignores its signal holds the stop only until the shutdown deadline', async () => {
    const { manager: m, warnings } = manager({ gracefulShutdownTimeoutMs: 300 });
    m.add({ needLeaderElection: false, start: () => new Promise<void>(() => undefined) });
    const done = m.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopping = Date.now();
    await m.stop();
    await done;
    const took = Date.now() - stopping;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(2_000);
    expect(warnings).toContain('runnables still running at the shutdown deadline; not waiting for them');
  });

  it('a server that cannot listen fails the start with its error, before any runnable starts', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { manager: m } = manager({ healthProbeBindAddress: `127.0.0.1:${port}` });
      let started = false;
      m.add({ needLeaderElection: false, start: () => void (started = true) });
      await expect(m.start()).rejects.toThrow(/EADDRINUSE/);
      expect(started).toBe(false);
      await expect(m.start()).rejects.toThrow(/started once/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a runnable that fails while starting stops the manager with its error; later failures are only logged', async () => {
    const { manager: m, warnings } = manager();
    const first = new Error('first');
    let otherStopped = false;
    m.add({
      needLeaderElection: false,
      start: async (signal) => {
        await untilAborted(signal);
        otherStopped = true;
        throw new Error('second, while stopping');
      },
    });
    m.add({ needLeaderElection: false, start: () => Promise.reject(first) });
    await expect(m.start()).rejects.toBe(first);
    expect(otherStopped).toBe(true);
    expect(warnings).toContain('a runnable failed while the manager stopped');
  });
});
