import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { trackForCleanup } from '../testing/cleanup.js';

/** How the manager process ended. */
export interface ManagerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

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
  private exitInfo: ManagerExit | undefined;
  private stopping: Promise<ManagerExit> | undefined;
  private readonly cleanup: { release(): void };

  private constructor(
    private readonly child: ChildProcess,
    private readonly launch: ManagerLaunch,
    stopTimeoutMs: number,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
      child.once('error', () => {
        if (this.exitInfo) return;
        this.exitInfo = { code: null, signal: null };
        resolve(this.exitInfo);
      });
    });
    this.cleanup = trackForCleanup({
      pids: () => (child.pid === undefined || this.exitInfo ? [] : [child.pid]),
      dirs: [],
      marker: launch.entry,
      killAndRemove: async () => {
        await this.stop(stopTimeoutMs);
      },
      killAndRemoveSync: () => {
        if (!this.exitInfo) child.kill('SIGKILL');
      },
    });
    void this.exited.then(() => this.cleanup.release());
  }

  /** Starts `node --enable-source-maps <entry> <args>`. */
  static start(launch: ManagerLaunch, stopTimeoutMs = 10_000): ManagerProcess {
    const child = spawn(process.execPath, ['--enable-source-maps', launch.entry, ...launch.args], {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ['ignore', 'inherit', 'inherit'],
      // Its own process group: a Ctrl-C on the terminal reaches kop dev alone, which stops the
      // manager once (SIGTERM); the manager would take a second signal for "exit at once".
      detached: true,
    });
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
    return this.exitInfo;
  }

  /**
   * Polls /readyz until it answers 200 (the manager's caches have synced and its controllers
   * run), the process exits, `timeoutMs` passes, or `giveUp()` says to stop waiting (the session
   * stops, or a newer change waits for its cycle).
   */
  async waitReady(timeoutMs: number, giveUp: () => boolean = () => false): Promise<Readiness> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (this.exitInfo) return 'exited';
      if (this.stopping || giveUp()) return 'stopped';
      if (await probe(this.launch.probePort)) return 'ready';
      if (performance.now() > deadline) return 'timeout';
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 25)), this.exited]);
    }
  }

  /** SIGTERM (the manager's graceful shutdown), then SIGKILL after `timeoutMs`. Idempotent. */
  stop(timeoutMs: number): Promise<ManagerExit> {
    this.stopping ??= this.stopNow(timeoutMs);
    return this.stopping;
  }

  private async stopNow(timeoutMs: number): Promise<ManagerExit> {
    if (this.exitInfo) return this.exitInfo;
    this.child.kill('SIGTERM');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const first = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (first !== 'timeout') return first;
    this.child.kill('SIGKILL');
    return this.exited;
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
