/** A deadline scheduled on a {@link Deadlines}; `cancel` it when the work finished in time. */
export interface Deadline {
  cancel(): void;
}

interface Entry {
  at: number;
  fire: (() => void) | undefined;
}

/**
 * Many deadlines on one timer, for the request timeouts of a RestClient: every request has one
 * (60 s by default) and almost none fires, and a Node timer armed and cleared per request showed
 * in the CPU profile of a busy operator. Deadlines are kept in a min-heap by time; the timer is
 * armed for the earliest and moved only when an earlier one arrives, never by a cancel. A
 * cancelled deadline drops its callback at once (nothing it captured stays alive) and leaves the
 * heap lazily: the heap is emptied when none is live, and rebuilt from the live ones when the
 * cancelled outnumber them three to one. The timer does not keep the
 * process alive: a request waiting for its answer does, through its socket.
 */
export class Deadlines {
  private heap: Entry[] = [];
  private live = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedAt = Infinity;

  /** Calls `fire` once `delayMs` have passed, unless cancelled first. */
  schedule(fire: () => void, delayMs: number): Deadline {
    const entry: Entry = { at: performance.now() + delayMs, fire };
    this.push(entry);
    this.live++;
    if (entry.at < this.armedAt) this.arm(entry.at);
    return {
      cancel: () => {
        if (!entry.fire) return;
        entry.fire = undefined;
        this.live--;
        // The timer stays armed when none is left: requests sent one after another would
        // otherwise arm and clear it each time, as a timer per request does. It wakes once,
        // finds nothing due, and sleeps until the earliest deadline then in the heap.
        if (this.live === 0) this.heap = [];
        else if (this.heap.length > 32 && this.heap.length > 3 * this.live) {
          this.heap = this.heap.filter((e) => e.fire !== undefined);
          for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.down(i);
        }
      },
    };
  }

  private arm(at: number): void {
    this.disarm();
    this.armedAt = at;
    this.timer = setTimeout(() => this.expire(), Math.max(1, Math.ceil(at - performance.now())));
    this.timer.unref?.();
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
  }

  private expire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = performance.now();
    const due: (() => void)[] = [];
    while (this.heap.length > 0 && (this.heap[0]!.fire === undefined || this.heap[0]!.at <= now)) {
      const entry = this.pop();
      if (entry.fire) {
        due.push(entry.fire);
        entry.fire = undefined;
        this.live--;
      }
    }
    if (this.heap.length > 0) this.arm(this.heap[0]!.at);
    for (const fire of due) fire();
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= entry.at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): Entry {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.down(0);
    }
    return top;
  }

  private down(i: number): void {
    const heap = this.heap;
    const entry = heap[i]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= heap.length) break;
      if (child + 1 < heap.length && heap[child + 1]!.at < heap[child]!.at) child++;
      if (heap[child]!.at >= entry.at) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = entry;
  }
}
