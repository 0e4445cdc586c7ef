// The workqueue_* metrics as client-go's work queue reports them under controller-runtime.
import { describe, expect, it } from 'vitest';
import { ManagerMetrics } from '../../../src/runtime/manager/metrics.js';
import { WorkQueue } from '../../../src/runtime/queue/work-queue.js';
import { FakeClock } from './fake-clock.js';

async function sample(metrics: ManagerMetrics, name: string): Promise<number | undefined> {
  const text = await metrics.render();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('controller="widget"'));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

function setup() {
  const clock = new FakeClock();
  const metrics = new ManagerMetrics({ processMetrics: false });
  const queue = new WorkQueue({ clock, metrics: metrics.queue('widget') });
  return { clock, metrics, queue };
}

describe('work queue metrics', () => {
  it('report unfinished work and the longest running processor at scrape time', async () => {
    const { clock, metrics, queue } = setup();
    expect(await sample(metrics, 'workqueue_unfinished_work_seconds')).toBe(0);
    expect(await sample(metrics, 'workqueue_longest_running_processor_seconds')).toBe(0);
    queue.add('a');
    queue.add('b');
    const a = await queue.get();
    clock.advance(2000);
    const b = await queue.get();
    clock.advance(1000);
    // a has run 3 s, b 1 s.
    expect(await sample(metrics, 'workqueue_unfinished_work_seconds')).toBe(4);
    expect(await sample(metrics, 'workqueue_longest_running_processor_seconds')).toBe(3);
    queue.done(a!);
    expect(await sample(metrics, 'workqueue_longest_running_processor_seconds')).toBe(1);
    queue.done(b!);
    expect(await sample(metrics, 'workqueue_unfinished_work_seconds')).toBe(0);
    expect(await sample(metrics, 'workqueue_longest_running_processor_seconds')).toBe(0);
  });

  it('count every delayed add as a retry (requeueAfter included), as client-go does', async () => {
    const { metrics, queue } = setup();
    queue.addAfter('a', 1000);
    queue.addRateLimited('b');
    expect(await sample(metrics, 'workqueue_retries_total')).toBe(2);
  });
});
