import type { Runnable } from './runnable-group.js';

/**
 * A server as the manager runs it, in the servers group (probes, metrics, webhooks): `listen`
 * at start, `close` once the signal aborts. The group waits for {@link listening} before the
 * caches start, so a port already taken fails the start.
 */
export class ServerRunnable implements Runnable {
  readonly needLeaderElection = false;
  private markListening!: () => void;
  /** Resolves once the server listens. */
  readonly listening = new Promise<void>((resolve) => (this.markListening = resolve));

  constructor(
    private readonly listen: () => Promise<void>,
    private readonly close: () => Promise<void>,
  ) {}

  async start(signal: AbortSignal): Promise<void> {
    await this.listen();
    this.markListening();
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    await this.close();
  }
}
