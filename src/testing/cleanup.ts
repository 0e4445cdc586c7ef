import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { Socket } from 'node:net';

/**
 * Something that owns child processes and a temp folder and must not outlive this process:
 * a running control plane (or one that is half started).
 */
export interface CleanupTarget {
  /** Process ids to kill if this process dies; the reaper checks each still belongs to `marker`. */
  pids(): number[];
  /** Folders to delete once those processes are gone. */
  readonly dirs: readonly string[];
  /** A string in each tracked process's command line (its temp folder) so a reused pid is never killed. */
  readonly marker: string;
  /** Fast asynchronous teardown for signals: kill the processes, wait for them, delete the folders. */
  killAndRemove(): Promise<void>;
  /** Synchronous last resort for process 'exit': send SIGKILL and try to delete the folders. */
  killAndRemoveSync(): void;
}

const HANDLED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const targets = new Map<number, CleanupTarget>();
let nextId = 1;
let installed = false;
let reaper: ChildProcess | undefined;

/**
 * Tracks `target` until the returned function is called. While anything is tracked:
 * - on SIGINT/SIGTERM/SIGHUP every target is killed and removed, then the signal is raised
 *   again so the process ends the way it would have (unless another listener handles it);
 * - on process 'exit' (normal end, process.exit()) targets are SIGKILLed synchronously;
 * - a detached reaper process watches a pipe from this process and, when the pipe closes
 *   because this process died in a way no handler sees (SIGKILL, a crash, a vitest worker
 *   being terminated), kills the tracked processes and deletes their folders.
 */
export function trackForCleanup(target: CleanupTarget): { update(): void; release(): void } {
  const id = nextId++;
  targets.set(id, target);
  install();
  const update = () => tellReaper({ op: 'track', id, pids: target.pids(), dirs: target.dirs, marker: target.marker });
  update();
  return {
    update,
    release() {
      if (!targets.delete(id)) return;
      tellReaper({ op: 'untrack', id });
      if (targets.size === 0) uninstall();
    },
  };
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', onExit);
  for (const signal of HANDLED_SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', onExit);
  for (const signal of HANDLED_SIGNALS) process.off(signal, onSignal);
}

function onExit(): void {
  for (const target of targets.values()) target.killAndRemoveSync();
}

let handlingSignal = false;

function onSignal(signal: NodeJS.Signals): void {
  if (handlingSignal) return;
  handlingSignal = true;
  const pending = [...targets.values()];
  targets.clear();
  void Promise.allSettled(pending.map((target) => target.killAndRemove())).then(() => {
    uninstall();
    handlingSignal = false;
    // Only re-raise when nobody else listens: another listener has its own plan (vitest's,
    // a user's graceful shutdown) and re-raising would pre-empt it.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}

/**
 * The reaper is a tiny Node program (CommonJS, run with `node -e`) so it needs no file on
 * disk, works the same from src under vitest and from dist, and starts in parallel with the
 * control plane. It is detached (own session) so a Ctrl-C aimed at the terminal's foreground
 * group does not kill it before it has done its job. It reads JSON lines on stdin; EOF on
 * stdin means this process is gone.
 */
const REAPER_SOURCE = `
const fs = require('node:fs');
const tracked = new Map();
let buffer = '';
let reaping = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    let message;
    try { message = JSON.parse(line); } catch { continue; }
    if (message.op === 'track') tracked.set(message.id, message);
    else if (message.op === 'untrack') tracked.delete(message.id);
  }
});
process.stdin.on('end', reap);
process.stdin.on('error', reap);
process.on('SIGTERM', reap);
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
const hasProc = fs.existsSync('/proc/self/cmdline');
function alive(pid) {
  try { process.kill(pid, 0); return true; } catch (error) { return error.code === 'EPERM'; }
}
function belongs(pid, marker) {
  if (!hasProc) return alive(pid);
  try { return fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').includes(marker); } catch { return false; }
}
function reap() {
  if (reaping) return;
  reaping = true;
  const victims = [];
  for (const entry of tracked.values()) {
    for (const pid of entry.pids) {
      if (belongs(pid, entry.marker)) {
        try { process.kill(pid, 'SIGKILL'); victims.push(pid); } catch {}
      }
    }
  }
  const deadline = Date.now() + 10000;
  const finish = () => {
    if (victims.some(alive) && Date.now() < deadline) return setTimeout(finish, 50);
    for (const entry of tracked.values()) {
      for (const dir of entry.dirs) {
        try { fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 }); } catch {}
      }
    }
    process.exit(0);
  };
  finish();
}
`;

function tellReaper(message: Record<string, unknown>): void {
  const child = reaper ?? startReaper();
  if (!child?.stdin || child.stdin.destroyed) return;
  child.stdin.write(`${JSON.stringify(message)}\n`);
}

function startReaper(): ChildProcess | undefined {
  try {
    const child = spawn(process.execPath, ['-e', REAPER_SOURCE], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      // The reaper is plain CommonJS; loaders or flags meant for the test process must not apply.
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    child.on('error', () => {
      if (reaper === child) reaper = undefined;
    });
    child.on('exit', () => {
      if (reaper === child) reaper = undefined;
    });
    child.stdin?.on('error', () => undefined);
    child.unref();
    (child.stdin as Socket | null)?.unref?.();
    reaper = child;
    return child;
  } catch {
    // Without a reaper the in-process handlers still cover signals and normal exits.
    return undefined;
  }
}

/** Removes a folder tree, ignoring its absence; retries briefly in case a killed child still had files open. */
export function removeDirSync(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  } catch {
    // The reaper or a later run's cleanup gets it; an exit handler must not throw.
  }
}
