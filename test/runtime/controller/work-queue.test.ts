import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../../src/runtime/queue/work-queue.js';
import {
  ExponentialBackoffRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
} from '../../../src/runtime/queue/rate-limiter.js';
import { FakeClock } from './fake-clock.js';

function makeQueue(clock = new FakeClock()) {
  const events: string[] = [];
  const queue = new WorkQueue({
    clock,
    rateLimiter: new ExponentialBackoffRateLimiter({ baseDelayMs: 10, maxDelayMs: 80 }),
    metrics: {
      added: () => events.push('added'),
      retried: () => events.push('retried'),
      queueLatency: (s) => events.push(`latency:${s}`),
      workDuration: (s) => events.push(`work:${s}`),
    },
  });
  return { queue, clock, events };
}

describe('WorkQueue', () => {
  it('de-duplicates keys that are waiting', async () => {
    const { queue } = makeQueue();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
  });

  it('never hands the same key to two workers; re-queues it after done when added meanwhile', async () => {
    const { queue } = makeQueue();
    queue.add('a');
    const first = await queue.get();
    expect(first).toBe('a');
    queue.add('a');
    queue.add('a');
    expect(queue.length).toBe(0);
    let second: string | undefined;
    void queue.get().then((k) => (second = k));
    await Promise.resolve();
    expect(second).toBeUndefined();
    queue.done('a');
    await Promise.resolve();
    expect(second).toBe('a');
    expect(queue.processingCount).toBe(1);
  });

  it('wakes a blocked getter when a key arrives', async () => {
    const { queue } = makeQueue();
    const pending = queue.get();
    queue.add('x');
    expect(await pending).toBe('x');
  });

  it('addAfter delays and keeps the earliest of several delays', async () => {
    const { queue, clock } = makeQueue();
    queue.addAfter('a', 100);
    queue.addAfter('a', 50);
    queue.addAfter('a', 200);
    clock.advance(49);
    expect(queue.length).toBe(0);
    clock.advance(1);
    expect(queue.length).toBe(1);
    clock.advance(500);
    expect(queue.length).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('addRateLimited backs off exponentially per key with a cap; forget resets', async () => {
    const { queue, clock } = makeQueue();
    const readyAfter: number[] = [];
    for (let i = 0; i < 6; i++) {
      queue.addRateLimited('a');
      let waited = 0;
      while (queue.length === 0) {
        clock.advance(1);
        waited++;
      }
      readyAfter.push(waited);
      queue.done((await queue.get())!);
    }
    expect(readyAfter).toEqual([10, 20, 40, 80, 80, 80]);
    expect(queue.numRequeues('a')).toBe(6);
    expect(queue.numRequeues('b')).toBe(0);
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
  });

  it('shutDown stops handing out work and resolves blocked getters', async () => {
    const { queue } = makeQueue();
    const blocked = queue.get();
    queue.shutDown();
    expect(await blocked).toBeUndefined();
    queue.add('late');
    expect(queue.length).toBe(0);
    expect(await queue.get()).toBeUndefined();
  });

  it('shutDownWithDrain waits for keys in flight', async () => {
    const { queue } = makeQueue();
    queue.add('a');
    queue.add('b');
    await queue.get();
    let drained = false;
    const draining = queue.shutDownWithDrain().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    queue.done('a');
    await draining;
    expect(drained).toBe(true);
  });

  it('reports adds, retries, queue latency and work duration', async () => {
    const { queue, clock, events } = makeQueue();
    queue.add('a');
    clock.advance(250);
    const key = await queue.get();
    clock.advance(500);
    queue.done(key!);
    queue.addRateLimited('a');
    expect(events).toEqual(['added', 'latency:0.25', 'work:0.5', 'retried']);
  });
});

describe('rate limiters', () => {
  it('token bucket allows a burst then spaces retries by the rate', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucketRateLimiter({ ratePerSecond: 10, burst: 2, clock });
    expect([bucket.when(), bucket.when(), bucket.when(), bucket.when()]).toEqual([0, 0, 100, 200]);
    clock.advance(1000);
    expect(bucket.when()).toBe(0);
  });

  it('max-of takes the longest delay', () => {
    const clock = new FakeClock();
    const limiter = new MaxOfRateLimiter(
      new ExponentialBackoffRateLimiter({ baseDelayMs: 1, maxDelayMs: 1000 }),
      new TokenBucketRateLimiter({ ratePerSecond: 1, burst: 1, clock }),
    );
    expect(limiter.when('a')).toBe(1);
    expect(limiter.when('a')).toBe(1000);
    expect(limiter.numRequeues('a')).toBe(2);
  });
});

describe('WorkQueue default rate limiter (controller-runtime DefaultControllerRateLimiter)', () => {
  it('backs a key off exponentially from 5 ms, capped at 1000 s', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock });
    for (let i = 0; i < 30; i++) {
      const want = Math.min(5 * 2 ** i, 1_000_000);
      // Spaced out so the overall bucket (10 qps, burst 100) never adds to the per-key delay.
      queue.addRateLimited('a');
      clock.advance(want - 1);
      expect(queue.length, `retry ${i + 1}`).toBe(0);
      clock.advance(1);
      expect(queue.length, `retry ${i + 1}`).toBe(1);
      queue.done((await queue.get())!);
    }
    expect(queue.numRequeues('a')).toBe(30);
  });

  it('lets 100 distinct keys retry at once, then 10 per second', () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock });
    for (let i = 0; i < 103; i++) queue.addRateLimited(`k${i}`);
    clock.advance(5);
    expect(queue.length).toBe(100);
    clock.advance(94);
    expect(queue.length).toBe(100);
    clock.advance(1);
    expect(queue.length).toBe(101);
    clock.advance(200);
    expect(queue.length).toBe(103);
  });
});
