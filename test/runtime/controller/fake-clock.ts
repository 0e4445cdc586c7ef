import type { CancelTimer, Clock } from '../../../src/runtime/util/clock.js';

/** A manually advanced clock for deterministic queue and backoff tests. */
export class FakeClock implements Clock {
  private current: number;
  private timers: Array<{ at: number; seq: number; callback: () => void }> = [];
  private seq = 0;

  constructor(start = 1_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(callback: () => void, delayMs: number): CancelTimer {
    const timer = { at: this.current + Math.max(0, delayMs), seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      this.current = next.at;
      next.callback();
    }
    this.current = target;
  }

  get pendingTimers(): number {
    return this.timers.length;
  }
}
