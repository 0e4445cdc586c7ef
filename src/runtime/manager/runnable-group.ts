import type { Logger } from '../util/logger.js';

/**
 * Something the manager runs, as controller-runtime's `manager.Runnable`: `start` runs until
 * `signal` aborts and settles once the runnable has cleaned up. Resolving earlier means it is
 * done; rejecting stops the manager, whose `start()` then rejects with that error.
 */
export interface Runnable {
  start(signal: AbortSignal): Promise<void> | void;
  /**
   * Whether it runs only on the replica holding the leader lease (once the lease is held; at
   * once without leader election). Default true, as in controller-runtime: false for work every
   * replica does (a warm standby filling a cache, a server), which then starts after the caches.
   */
  readonly needLeaderElection?: boolean;
}

/** How a group treats one of its runnables. */
export interface MemberOptions {
  /** What the group waits for before the runnable counts as started: a server listening, a cache synced. */
  ready?: (signal: AbortSignal) => Promise<void>;
  /** The runnable ends by the shutdown deadline on its own (a controller's drain): `stop` waits for it whatever its timeout. */
  stopsByDeadline?: boolean;
}

interface Member extends MemberOptions {
  readonly runnable: Runnable;
  /** Settles (never rejects) when the runnable's start has settled; undefined until it starts. */
  finished?: Promise<void>;
  done: boolean;
}

/**
 * Runnables started together and stopped together, as controller-runtime's `runnableGroup`:
 * `start` starts every member and resolves when each is ready; a member added to a started group
 * starts at once; `stop` aborts their signal and waits for them, up to a deadline.
 */
export class RunnableGroup {
  private readonly members: Member[] = [];
  private readonly abort = new AbortController();
  private phase: 'idle' | 'started' | 'stopping' | 'stopped' = 'idle';

  constructor(
    /** Names the group in logs and errors: `servers`, `caches`, `others`, `leader election`. */
    readonly name: string,
    /** Told of a member that fails before the group stops. */
    private readonly onError: (err: unknown) => void,
    private readonly logger: Logger,
  ) {}

  /** True from `start` until `stop` has finished. */
  get running(): boolean {
    return this.phase === 'started' || this.phase === 'stopping';
  }

  /** Adds a runnable; it starts now when the group runs already. Refused once the group is stopping. */
  add(runnable: Runnable, options: MemberOptions = {}): void {
    if (this.phase === 'stopping' || this.phase === 'stopped')
      throw new Error(`the manager is stopping: a runnable can no longer be added (${this.name} group)`);
    const member: Member = { ...options, runnable, done: false };
    this.members.push(member);
    // A failure reaches onError; the readiness of a late member is nobody's to wait for.
    if (this.phase === 'started') this.run(member).catch(() => undefined);
  }

  /** Starts every member; resolves once each is ready, rejects with the first that fails first. Once only. */
  async start(): Promise<void> {
    if (this.phase !== 'idle') return;
    this.phase = 'started';
    await Promise.all(this.members.map((m) => this.run(m)));
  }

  /**
   * Aborts the members' signal and waits until they have all settled or `timeoutMs` passed (the
   * members that stop by the deadline on their own are waited for in any case); resolves true
   * when they all settled in time.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    if (this.phase === 'stopped') return true;
    this.phase = 'stopping';
    const until = Date.now() + timeoutMs;
    this.abort.abort(new Error('manager stopped'));
    await Promise.all(this.members.filter((m) => m.stopsByDeadline).map(async (m) => m.finished));
    const settled = Promise.all(this.members.map(async (m) => m.finished)).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<false>(
      (resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, until - Date.now()))),
    );
    const finished = await Promise.race([settled, expired]);
    clearTimeout(timer);
    this.phase = 'stopped';
    if (!finished) {
      this.logger.warn('runnables still running at the shutdown deadline; not waiting for them', {
        group: this.name,
        running: this.members.filter((m) => m.finished && !m.done).length,
      });
    }
    return finished;
  }

  /** Starts one member; resolves when it is ready (or has already ended), rejects when it fails first. */
  private run(member: Member): Promise<void> {
    const signal = this.abort.signal;
    const running = (async () => member.runnable.start(signal))();
    member.finished = running.then(
      () => void (member.done = true),
      (err: unknown) => {
        member.done = true;
        if (signal.aborted) this.logger.error('a runnable failed while the manager stopped', { group: this.name, err });
        else this.onError(err);
      },
    );
    // A plain runnable counts as started at once: a failure reaches onError through `finished`.
    if (!member.ready) return Promise.resolve();
    return Promise.race([member.ready(signal), running.then(() => undefined)]);
  }
}
