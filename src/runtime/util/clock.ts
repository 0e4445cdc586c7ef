/** Cancels a timer started by {@link Clock.setTimer}. */
export type CancelTimer = () => void;

/**
 * Time source for the controller machinery. Injected so queue, backoff and
 * leader-election logic can be tested deterministically with a fake clock.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `callback` after `delayMs`; the returned function cancels it. */
  setTimer(callback: () => void, delayMs: number): CancelTimer;
}

/** The wall clock, backed by Date.now and setTimeout. Timers do not keep the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delayMs) {
    const handle = setTimeout(callback, Math.max(0, delayMs));
    handle.unref?.();
    return () => clearTimeout(handle);
  },
};

/**
 * Resolves after `delayMs` on `clock`, or rejects early with the signal's reason when aborted.
 * The one sleep of kop/runtime (retries, limiter waits, backoff, lease renewals). On the system
 * clock it keeps the process alive while it waits, as an awaited wait should: a script awaiting a
 * retried request must not exit before the retry.
 */
export function sleep(delayMs: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason);
    };
    const done = (): void => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    let cancel: CancelTimer;
    if (clock === systemClock) {
      const handle = setTimeout(done, Math.max(0, delayMs));
      cancel = () => clearTimeout(handle);
    } else {
      cancel = clock.setTimer(done, delayMs);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
