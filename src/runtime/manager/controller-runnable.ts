import type { Controller } from '../controller/controller.js';
import type { Runnable } from './runnable-group.js';

/** Reconciles still running at the shutdown deadline, per controller. */
export interface AbandonedReconciles {
  controller: string;
  reconciles: number;
}

/**
 * A controller as the manager runs it, in the leader-election group: started once the lease is
 * held and its informers have synced (at once from a warm cache); on stop it takes no new work and waits for reconciles in flight until the deadline
 * (0 after a lost lease), then aborts their signal and reports them.
 */
export class ControllerRunnable implements Runnable {
  readonly needLeaderElection = true;
  private running: Promise<void> | undefined;

  constructor(
    readonly controller: Controller,
    private readonly options: {
      /** Starts and syncs the controller's informers that are not synced yet (a cold standby's). */
      syncSources: (signal: AbortSignal) => Promise<void>;
      /** How long the drain may take, read when the stop begins. */
      deadlineMs: () => number;
      onAbandoned: (abandoned: AbandonedReconciles) => void;
    },
  ) {}

  start(signal: AbortSignal): Promise<void> {
    this.running ??= this.run(signal);
    return this.running;
  }

  /** Settles once the controller has stopped, at once when it never started. */
  get stopped(): Promise<void> {
    return this.running?.catch(() => undefined) ?? Promise.resolve();
  }

  private async run(signal: AbortSignal): Promise<void> {
    try {
      await this.options.syncSources(signal);
    } catch (err) {
      // Stopped while listing: nothing was reconciled, so there is nothing to drain.
      if (signal.aborted) return;
      throw err;
    }
    this.controller.start();
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    const finished = await this.controller.stop(this.options.deadlineMs());
    // Read at once: the aborted reconciles have not returned yet, so this is the count at the deadline.
    if (!finished)
      this.options.onAbandoned({ controller: this.controller.name, reconciles: Math.max(1, this.controller.inFlight) });
  }
}
