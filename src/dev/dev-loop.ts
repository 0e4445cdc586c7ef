/**
 * The scheduling of `kop dev`: file events come in bursts (an editor's atomic save is a
 * rename and a write; `kop create api` writes a dozen files), and each burst must give one
 * cycle, never two at once, and never lose an event that arrives while a cycle runs.
 */

/** What a change asks of the loop: `api` regenerates and reinstalls before rebuilding; `src` only rebuilds. */
export type ChangeKind = 'api' | 'src';

/** The files (project-relative, `/`-separated) changed since the last cycle began, by kind. */
export interface ChangeSet {
  api: string[];
  src: string[];
}

/** Options of {@link DevLoop}. */
export interface DevLoopOptions {
  /** One cycle: regenerate, reinstall, rebuild, restart, as the change set asks. Never runs twice at once. */
  runCycle(changes: ChangeSet): Promise<void>;
  /** Called with what a cycle threw; the loop goes on. Default: rethrown on a later tick (a bug). */
  onError?(error: unknown): void;
  /** Quiet time after the last event of a burst before its cycle starts; default 100 ms. */
  quietMs?: number;
  /** The longest a stream of events may hold its cycle back; default 1,000 ms. */
  maxWaitMs?: number;
  /** The clock in milliseconds; default Date.now (fake timers replace it in tests). */
  now?: () => number;
}

/**
 * Debounces file events into cycles and runs them one at a time: a cycle starts once no
 * event came for `quietMs` (or `maxWaitMs` after the first event of a burst that does not
 * end); events that arrive while a cycle runs are gathered into the next one, which starts
 * as soon as the running one ends if their quiet time has passed by then.
 */
export class DevLoop {
  private readonly quietMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private pending: { api: Set<string>; src: Set<string> } = { api: new Set(), src: new Set() };
  private firstEventAt: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private idleWaiters: Array<() => void> = [];
  private cycles = 0;

  constructor(private readonly options: DevLoopOptions) {
    this.quietMs = options.quietMs ?? 100;
    this.maxWaitMs = Math.max(options.maxWaitMs ?? 1_000, this.quietMs);
    this.now = options.now ?? (() => Date.now());
  }

  /** How many cycles have started. */
  get cycleCount(): number {
    return this.cycles;
  }

  /** True when changes wait for the next cycle (a running cycle may cut a long wait short). */
  get hasPending(): boolean {
    return this.pending.api.size + this.pending.src.size > 0;
  }

  /** Records a changed file; its cycle starts after the burst's quiet time. Ignored once closed. */
  notify(kind: ChangeKind, file: string): void {
    if (this.closed) return;
    this.pending[kind].add(file);
    this.firstEventAt ??= this.now();
    if (this.timer !== undefined) clearTimeout(this.timer);
    const waited = this.now() - this.firstEventAt;
    const delay = Math.max(0, Math.min(this.quietMs, this.maxWaitMs - waited));
    this.timer = setTimeout(() => this.onQuiet(), delay);
  }

  /** Resolves once no cycle runs and none is waiting to start. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops pending events and waits for the running cycle, if any; no cycle starts afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = { api: new Set(), src: new Set() };
    this.firstEventAt = undefined;
    await this.running;
    this.settleIdle();
  }

  private onQuiet(): void {
    this.timer = undefined;
    // A running cycle starts the next one when it ends.
    if (this.running === undefined) this.startCycle();
  }

  private startCycle(): void {
    const changes: ChangeSet = { api: [...this.pending.api].sort(), src: [...this.pending.src].sort() };
    this.pending = { api: new Set(), src: new Set() };
    this.firstEventAt = undefined;
    if (this.closed || (changes.api.length === 0 && changes.src.length === 0)) {
      this.settleIdle();
      return;
    }
    this.cycles += 1;
    const run = async () => {
      try {
        await this.options.runCycle(changes);
      } catch (error) {
        if (this.options.onError) this.options.onError(error);
        else
          setTimeout(() => {
            throw error;
          });
      }
    };
    this.running = run().finally(() => {
      this.running = undefined;
      const waiting = this.pending.api.size + this.pending.src.size > 0;
      // Events that came during the cycle and whose quiet time is over: their cycle starts now.
      if (!this.closed && waiting && this.timer === undefined) this.startCycle();
      else this.settleIdle();
    });
  }

  private isIdle(): boolean {
    return (
      this.running === undefined && this.timer === undefined && this.pending.api.size + this.pending.src.size === 0
    );
  }

  private settleIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
