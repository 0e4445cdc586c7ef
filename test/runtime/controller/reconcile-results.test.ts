// How a Controller treats what a reconcile returns or throws, with controller-runtime's semantics.
import { describe, expect, it } from 'vitest';
import { Controller, TerminalError } from '../../../src/runtime/controller/controller.js';
import { ManagerMetrics } from '../../../src/runtime/manager/metrics.js';
import type { ReconcileFunction } from '../../../src/runtime/controller/controller.js';
import { FakeClock } from './fake-clock.js';
import { RestClient, createClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { EventRecorder } from '../../../src/runtime/controller/event-recorder.js';
import { ApiError } from '../../../src/runtime/client/errors/api-error.js';
import type { Logger } from '../../../src/runtime/util/logger.js';

// Never called by these reconciles: a controller always hands its reconciles a client and recorder.
const rest = new RestClient(loadClientConfig({ server: 'https://127.0.0.1:1', env: {} }));
const handed = { client: createClient(rest), recorder: new EventRecorder({ rest, component: 'widget-controller' }) };

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

async function sample(metrics: ManagerMetrics, name: string): Promise<number | undefined> {
  const line = (await metrics.render())
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && l.includes('controller="widget"'));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('reconcile results', () => {
  it('a TerminalError (also as the cause of another error) is counted but not retried; other errors back off', async () => {
    const clock = new FakeClock();
    const metrics = new ManagerMetrics({ processMetrics: false });
    const calls: Record<string, number> = {};
    const reconcile: ReconcileFunction = ({ name }) => {
      calls[name] = (calls[name] ?? 0) + 1;
      if (name === 'terminal') throw new TerminalError('spec.size must be positive');
      if (name === 'wrapped') throw new Error('could not reconcile', { cause: new TerminalError('bad spec') });
      throw new Error('backend unreachable');
    };
    const controller = new Controller(reconcile, {
      ...handed,
      name: 'widget',
      clock,
      metrics: metrics.controller('widget', 1),
      queueMetrics: metrics.queue('widget'),
    });
    controller.start();
    for (const name of ['terminal', 'wrapped', 'transient']) controller.enqueue({ namespace: 'ns', name });
    for (let i = 0; i < 10; i++) {
      await settle();
      clock.advance(1000);
    }
    await settle();
    expect(calls.terminal).toBe(1);
    expect(calls.wrapped).toBe(1);
    expect(calls.transient).toBeGreaterThan(5);
    expect(await sample(metrics, 'controller_runtime_terminal_reconcile_errors_total')).toBe(2);
    expect(await sample(metrics, 'controller_runtime_reconcile_errors_total')).toBe(2 + calls.transient!);
    // A later change to the object reconciles it again.
    controller.enqueue({ namespace: 'ns', name: 'terminal' });
    await settle();
    expect(calls.terminal).toBe(2);
    await controller.stop(0);
  });

  it('a 409 Conflict is retried with backoff and counted as an error, but logged at info, not as a failure', async () => {
    const clock = new FakeClock();
    const metrics = new ManagerMetrics({ processMetrics: false });
    const lines: { level: string; message: string }[] = [];
    const logger: Logger = {
      debug: (message) => lines.push({ level: 'debug', message }),
      info: (message) => lines.push({ level: 'info', message }),
      warn: (message) => lines.push({ level: 'warn', message }),
      error: (message) => lines.push({ level: 'error', message }),
      child: () => logger,
    };
    let calls = 0;
    const reconcile: ReconcileFunction = () => {
      calls++;
      if (calls === 1)
        throw new ApiError(
          { code: 409, reason: 'Conflict', message: 'the object has been modified' },
          'PUT',
          '/apis/x/v1/namespaces/ns/widgets/w/status',
        );
      if (calls === 2) throw new Error('backend unreachable');
    };
    const controller = new Controller(reconcile, {
      ...handed,
      name: 'widget',
      clock,
      logger,
      metrics: metrics.controller('widget', 1),
      queueMetrics: metrics.queue('widget'),
    });
    controller.start();
    controller.enqueue({ namespace: 'ns', name: 'w' });
    for (let i = 0; i < 5; i++) {
      await settle();
      clock.advance(1000);
    }
    await settle();
    expect(calls).toBe(3);
    expect(lines.filter((l) => l.level === 'info' && /409 Conflict/.test(l.message))).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual(['reconcile failed']);
    expect(await sample(metrics, 'controller_runtime_reconcile_errors_total')).toBe(2);
    await controller.stop(0);
  });
});
