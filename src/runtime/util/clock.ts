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

/** Resolves after `delayMs` on `clock`, or rejects early with the signal's reason when aborted. */
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
    const cancel = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
