import { get } from 'node:http';
import { trackForCleanup, ManagedProcess, type ProcessExit } from '../testing/internal.js';

/** How the manager process ended. */
export type ManagerExit = ProcessExit;

/** What {@link ManagerProcess.start} runs. */
export interface ManagerLaunch {
  /** The built entry point (absolute); also how the reaper recognises the process. */
  entry: string;
  /** The manager's flags. */
  args: readonly string[];
  /** Its working folder: the project root, as with `npm start`. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The port of its /readyz (`--health-probe-bind-address 127.0.0.1:<port>`). */
  probePort: number;
}

/** How {@link ManagerProcess.waitReady} ended. */
export type Readiness = 'ready' | 'exited' | 'timeout' | 'stopped';

/**
 * The operator's manager as a child process of `kop dev`, sharing its terminal (so its log is
 * readable text on a terminal and JSON lines when piped, as with `npm start`). Tracked like the
 * control plane's processes: a detached reaper kills it should `kop dev` itself be killed.
 */
export class ManagerProcess {
  /** Resolves when the process has exited. */
  readonly exited: Promise<ManagerExit>;
  private stopping: Promise<ManagerExit> | undefined;

  private constructor(
    private readonly child: ManagedProcess,
    private readonly launch: ManagerLaunch,
    stopTimeoutMs: number,
  ) {
    this.exited = child.exited;
    const cleanup = trackForCleanup({
      pids: () => (child.pid === undefined || child.exitStatus ? [] : [child.pid]),
      dirs: [],
      marker: launch.entry,
      killAndRemove: async () => {
        await this.stop(stopTimeoutMs);
      },
      killAndRemoveSync: () => child.signal('SIGKILL'),
    });
    void this.exited.then(() => cleanup.release());
  }

  /** Starts `node --enable-source-maps <entry> <args>`. */
  static start(launch: ManagerLaunch, stopTimeoutMs = 10_000): ManagerProcess {
    const child = ManagedProcess.start(
      'manager',
      process.execPath,
      ['--enable-source-maps', launch.entry, ...launch.args],
      {
        cwd: launch.cwd,
        env: launch.env,
        inheritOutput: true,
        // A Ctrl-C on the terminal reaches kop dev alone, which stops the manager once (SIGTERM);
        // the manager would take a second signal for "exit at once".
        ownProcessGroup: true,
      },
    );
    return new ManagerProcess(child, launch, stopTimeoutMs);
  }

  /** The process id (undefined only when the spawn failed). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True once {@link stop} was called: an exit from now on is expected. */
  get stopRequested(): boolean {
    return this.stopping !== undefined;
  }

  /** Set once the process has exited. */
  get exitStatus(): ManagerExit | undefined {
    return this.child.exitStatus;
  }

  /**
   * Polls /readyz until it answers 200 (the manager's caches have synced and its controllers
   * run), the process exits, `timeoutMs` passes, or `giveUp()` says to stop waiting (the session
   * stops, or a newer change waits for its cycle).
   */
  async waitReady(timeoutMs: number, giveUp: () => boolean = () => false): Promise<Readiness> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (this.exitStatus) return 'exited';
      if (this.stopping || giveUp()) return 'stopped';
      if (await probe(this.launch.probePort)) return 'ready';
      if (performance.now() > deadline) return 'timeout';
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 25)), this.exited]);
    }
  }

  /**
   * SIGTERM (the manager's graceful shutdown), then SIGKILL after `timeoutMs`. Idempotent: a
   * second SIGTERM would tell the manager to exit at once.
   */
  stop(timeoutMs: number): Promise<ManagerExit> {
    this.stopping ??= this.child.stop(timeoutMs);
    return this.stopping;
  }
}

/** True when `GET http://127.0.0.1:<port>/readyz` answers 200. */
function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/readyz', timeout: 1_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}
