import { isConflict } from '../errors/api-error.js';
import { sleep } from '../../util/clock.js';

/** Exponential backoff: `steps` attempts, waits of `initialMs * factor^n` (capped), each spread by ± `jitter`. */
export interface Backoff {
  /** Total attempts, the first included. */
  steps: number;
  /** Wait before the second attempt. */
  initialMs: number;
  /** Multiplier applied to the wait after each attempt. */
  factor: number;
  /** Fraction of random spread added to each wait (0.5 = up to +50%), so racing writers desynchronise. */
  jitter: number;
  /** Upper bound of one wait. */
  capMs: number;
}

/** Default for retryOnConflict: 6 attempts, 10ms doubling to at most 1s, with 50% jitter. */
export const DEFAULT_CONFLICT_BACKOFF: Backoff = { steps: 6, initialMs: 10, factor: 2, jitter: 0.5, capMs: 1000 };

/** The wait before attempt `attempt + 1` (0-based attempt that just failed). */
export function backoffDelay(backoff: Backoff, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(backoff.capMs, backoff.initialMs * backoff.factor ** attempt);
  return base + base * backoff.jitter * random();
}

/**
 * Runs `fn` and, each time it fails with a 409 Conflict, waits and runs it again, up to
 * `backoff.steps` attempts; any other error, or the last conflict, is thrown. `fn` must do the
 * whole get-modify-update, so every retry starts from a fresh read:
 *
 *   await retryOnConflict(async () => {
 *     const cm = await configMaps.get('settings');
 *     cm.data = { ...cm.data, mode: 'fast' };
 *     await configMaps.update(cm);
 *   });
 */
export async function retryOnConflict<R>(
  fn: (attempt: number) => Promise<R>,
  backoff: Partial<Backoff> & { signal?: AbortSignal } = {},
): Promise<R> {
  const b: Backoff = { ...DEFAULT_CONFLICT_BACKOFF, ...backoff };
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!isConflict(err) || attempt + 1 >= b.steps) throw err;
      await sleep(backoffDelay(b, attempt), backoff.signal);
    }
  }
}
