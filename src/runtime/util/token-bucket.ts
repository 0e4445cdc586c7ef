import { sleep } from './clock.js';

/**
 * The one token bucket of kop/runtime: `qps` tokens per second refill a bucket of `burst` tokens.
 * RestClient's client-side limiter takes tokens and waits for them (client-go's token-bucket
 * limiter; off by default, see its `qps` option; waiters are served in order); the work queue's
 * overall retry budget reserves them ahead (`reserve`), as client-go's BucketRateLimiter does.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(qps > 0)) throw new RangeError(`qps must be > 0, got ${qps}`);
    if (!(burst >= 1)) throw new RangeError(`burst must be >= 1, got ${burst}`);
    this.tokens = burst;
    this.last = now();
  }

  /**
   * Reserves a token now, going into debt when none is left, and says how many milliseconds
   * until the reserved token has accrued (0 when it was there).
   */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
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
