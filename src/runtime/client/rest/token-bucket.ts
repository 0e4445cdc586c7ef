/**
 * Client-side rate limiter: `qps` tokens per second refill a bucket of `burst` tokens, and every
 * request takes one, waiting when the bucket is empty. Same model as client-go's token-bucket
 * limiter. Off by default in RestClient (see its `qps` option). Waiters are served in order.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly qps: number, readonly burst: number, private readonly now: () => number = () => performance.now()) {
    if (!(qps > 0)) throw new RangeError(`qps must be > 0, got ${qps}`);
    if (!(burst >= 1)) throw new RangeError(`burst must be >= 1, got ${burst}`);
    this.tokens = burst;
    this.last = now();
  }

  /** Takes a token without waiting; false when none is available. */
  tryTake(): boolean {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  /** Takes a token when one is there and nobody waits ahead (synchronously); false otherwise. */
  takeIfFree(): boolean {
    return this.tailIdle && this.tryTake();
  }

  /**
   * Takes a token. Returns `undefined` when one was available (taken synchronously: no timer, no
   * promise, nothing for the caller to await); otherwise a promise that resolves once the caller's
   * turn has come and a token has accrued, or rejects with the signal's reason if aborted first.
   */
  take(signal?: AbortSignal): Promise<void> | undefined {
    // Nobody is queued ahead and a token is there: the request goes now.
    if (this.takeIfFree()) return undefined;
    const turn = this.tail.then(() => this.waitForToken(signal));
    this.tailIdle = false;
    const settled = turn.catch(() => undefined);
    this.tail = settled;
    void settled.then(() => {
      if (this.tail === settled) this.tailIdle = true;
    });
    return turn;
  }

  private tailIdle = true;

  private async waitForToken(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.tryTake()) return;
      const waitMs = ((1 - this.tokens) / this.qps) * 1000;
      await sleep(Math.max(1, Math.ceil(waitMs)), signal);
    }
  }

  private refill(): void {
    const now = this.now();
    const elapsed = (now - this.last) / 1000;
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + elapsed * this.qps);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
