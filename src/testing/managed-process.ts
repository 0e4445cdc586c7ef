import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/** How a child process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options for {@link ManagedProcess.start}. */
export interface ManagedProcessOptions {
  /** Copy the child's output to this process's stdout/stderr as it arrives. */
  attachOutput?: boolean;
  /**
   * Let the child write to this process's own stdout/stderr (a terminal stays a terminal for
   * it, so its log format is the interactive one); no output tail is kept then.
   */
  inheritOutput?: boolean;
  /**
   * Start the child in its own process group, so a Ctrl-C on the terminal reaches this process
   * alone and it decides how the child stops.
   */
  ownProcessGroup?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

const OUTPUT_TAIL_BYTES = 32 * 1024;

/**
 * A child process kop starts and stops: a control-plane binary, or the manager under `kop dev`.
 * Piped output is always drained (a full pipe would stall the child) and the last few KiB are
 * kept for error messages. The child does not keep this process alive on its own; emergency
 * cleanup on exit is the caller's job (see cleanup.ts).
 */
export class ManagedProcess {
  private tail = '';
  private exitInfo: ProcessExit | undefined;
  /** Resolves when the child has exited, however that happened. */
  readonly exited: Promise<ProcessExit>;

  private constructor(
    /** A short name for messages, such as "etcd". */
    readonly name: string,
    private readonly child: ChildProcess,
    attachOutput: boolean,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
      // A spawn failure (ENOENT, EACCES) emits 'error' and no 'exit'.
      child.once('error', (error) => {
        this.append(`${error.message}\n`);
        if (!this.exitInfo) {
          this.exitInfo = { code: null, signal: null };
          resolve(this.exitInfo);
        }
      });
    });
    for (const [stream, target] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      stream?.on('data', (chunk: Buffer) => {
        this.append(chunk.toString('utf8'));
        if (attachOutput) target.write(chunk);
      });
      (stream as Socket | null)?.unref?.();
    }
    child.unref();
  }

  /** Starts `file` with `args` (an argument array; no shell involved). */
  static start(
    name: string,
    file: string,
    args: readonly string[],
    options: ManagedProcessOptions = {},
  ): ManagedProcess {
    const child = spawn(file, args, {
      stdio: ['ignore', options.inheritOutput ? 'inherit' : 'pipe', options.inheritOutput ? 'inherit' : 'pipe'],
      env: options.env ?? process.env,
      cwd: options.cwd,
      detached: options.ownProcessGroup ?? false,
    });
    return new ManagedProcess(name, child, options.attachOutput ?? false);
  }

  /** The operating-system process id (undefined only when the spawn itself failed). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Set once the child has exited. */
  get exitStatus(): ProcessExit | undefined {
    return this.exitInfo;
  }

  /** The last lines the child wrote to stdout and stderr. */
  outputTail(maxLines = 30): string {
    return this.tail
      .split('\n')
      .slice(-maxLines - 1)
      .join('\n')
      .trimEnd();
  }

  /**
   * Asks the child to stop with SIGTERM and waits up to `timeoutMs`, then SIGKILLs it.
   * While waiting the child holds the event loop open, so a script that awaits stop()
   * as its last act still sees the child gone.
   */
  async stop(timeoutMs: number): Promise<ProcessExit> {
    if (this.exitInfo) return this.exitInfo;
    this.child.ref();
    try {
      this.signal('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const first = await Promise.race([this.exited, timedOut]);
      clearTimeout(timer);
      if (first !== 'timeout') return first;
      this.signal('SIGKILL');
      return await this.exited;
    } finally {
      this.child.unref();
    }
  }

  /** SIGKILL now and wait for the exit. */
  async kill(): Promise<ProcessExit> {
    if (this.exitInfo) return this.exitInfo;
    this.child.ref();
    try {
      this.signal('SIGKILL');
      return await this.exited;
    } finally {
      this.child.unref();
    }
  }

  /** Sends a signal without waiting; safe to call from a synchronous 'exit' handler. */
  signal(signal: NodeJS.Signals): void {
    if (this.exitInfo || this.child.pid === undefined) return;
    try {
      process.kill(this.child.pid, signal);
    } catch {
      // Already gone between the check and the kill.
    }
  }

  private append(text: string): void {
    this.tail += text;
    if (this.tail.length > OUTPUT_TAIL_BYTES) this.tail = this.tail.slice(-OUTPUT_TAIL_BYTES);
  }
}
