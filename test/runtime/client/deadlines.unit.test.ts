// The request timeouts of a RestClient share one timer (client/rest/deadlines): each deadline
// fires once, on time and in order; cancelled ones never fire, however many come and go.
import { describe, expect, it, vi } from 'vitest';
import { Deadlines } from '../../../src/runtime/client/rest/deadlines.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Deadlines', () => {
  it('fires each deadline once, not before its time, earliest first, also when an earlier one arrives later', async () => {
    const deadlines = new Deadlines();
    const fired: { name: string; after: number }[] = [];
    const start = performance.now();
    const at = (name: string) => () => fired.push({ name, after: performance.now() - start });
    deadlines.schedule(at('300'), 300);
    deadlines.schedule(at('100'), 100);
    await sleep(10);
    deadlines.schedule(at('50+10'), 50);
    await sleep(400);
    expect(fired.map((f) => f.name)).toEqual(['50+10', '100', '300']);
    expect(fired[0]!.after).toBeGreaterThanOrEqual(59);
    expect(fired[1]!.after).toBeGreaterThanOrEqual(99);
    expect(fired[2]!.after).toBeGreaterThanOrEqual(299);
  });

  it('never fires a cancelled deadline, and keeps the live ones through many cancelled', async () => {
    const deadlines = new Deadlines();
    const fired: number[] = [];
    const kept: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const deadline = deadlines.schedule(() => fired.push(i), 20 + (i % 50));
      if (i % 100 === 7) kept.push(i);
      else deadline.cancel();
      if (i % 3 === 0) deadline.cancel(); // cancelling twice is harmless
    }
    await sleep(150);
    expect(fired.sort((a, b) => a - b)).toEqual(kept.filter((i) => i % 3 !== 0));
  });

  it('arms its timer once for requests sent one after another, not once per request', async () => {
    const deadlines = new Deadlines();
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const clearTimeoutSpy = vi.spyOn(globalThis, 'clearTimeout');
    try {
      for (let i = 0; i < 100; i++) deadlines.schedule(() => undefined, 60_000).cancel();
      expect(setTimeoutSpy).toHaveBeenCalledTimes(1);
      expect(clearTimeoutSpy).not.toHaveBeenCalled();
    } finally {
      setTimeoutSpy.mockRestore();
      clearTimeoutSpy.mockRestore();
    }
    // After everything was cancelled, a later, shorter deadline still fires on time.
    let fired = false;
    deadlines.schedule(() => (fired = true), 30);
    await sleep(80);
    expect(fired).toBe(true);
  });

  it('does not keep the process alive (a request waiting for its answer does, through its socket)', () => {
    const timeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timeouts();
    const deadline = new Deadlines().schedule(() => undefined, 60_000);
    expect(timeouts()).toBe(before);
    deadline.cancel();
  });
});
