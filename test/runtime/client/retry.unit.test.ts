import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/runtime/index.js';
import { retryOnConflict } from '../../../src/runtime/client/index.js';
import { DEFAULT_CONFLICT_BACKOFF, backoffDelay } from '../../../src/runtime/client/retry/retry-on-conflict.js';

const conflict = (): ApiError =>
  new ApiError({ kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' }, 'PUT', '/x');
const alreadyExists = (): ApiError =>
  new ApiError({ kind: 'Status', code: 409, reason: 'AlreadyExists', message: 'exists' }, 'POST', '/x');
const fast = { initialMs: 1, capMs: 2 };

describe('retryOnConflict', () => {
  it('retries conflicts until the function succeeds, passing the attempt number', async () => {
    const attempts: number[] = [];
    const result = await retryOnConflict(async (attempt) => {
      attempts.push(attempt);
      if (attempt < 2) throw conflict();
      return 'ok';
    }, fast);
    expect(result).toBe('ok');
    expect(attempts).toEqual([0, 1, 2]);
  });

  const cases: { name: string; error: () => unknown; wantAttempts: number }[] = [
    { name: 'other API errors are thrown at once', error: alreadyExists, wantAttempts: 1 },
    { name: 'non-API errors are thrown at once', error: () => new Error('boom'), wantAttempts: 1 },
    { name: 'the last conflict is thrown after `steps` attempts', error: conflict, wantAttempts: 3 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      let attempts = 0;
      const err = await retryOnConflict(
        async () => {
          attempts++;
          throw c.error();
        },
        { ...fast, steps: 3 },
      ).catch((e: unknown) => e);
      expect(attempts).toBe(c.wantAttempts);
      expect(err).toBeInstanceOf(Error);
    });
  }

  it('stops waiting when its signal aborts', async () => {
    const ac = new AbortController();
    const p = retryOnConflict(
      async () => {
        throw conflict();
      },
      { initialMs: 10_000, signal: ac.signal },
    );
    setTimeout(() => ac.abort(new Error('stopped')), 10);
    await expect(p).rejects.toThrow('stopped');
  });
});

describe('backoffDelay', () => {
  it('grows exponentially, adds at most `jitter` of spread, and is capped', () => {
    const b = { ...DEFAULT_CONFLICT_BACKOFF, initialMs: 10, factor: 2, jitter: 0.5, capMs: 100 };
    expect([0, 1, 2, 3, 4].map((n) => backoffDelay(b, n, () => 0))).toEqual([10, 20, 40, 80, 100]);
    expect([0, 1, 2, 3, 4].map((n) => backoffDelay(b, n, () => 1))).toEqual([15, 30, 60, 120, 150]);
  });
});
