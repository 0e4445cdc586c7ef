import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { type Context, type Output, KopError } from '../base/index.js';
import type { ReplayStep } from './project-features.js';

/** Folders a snapshot of a project leaves out: installs, kop's own tarballs and sessions, version control. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.kop']);

/** The files of a project folder by project-relative path (forward slashes), as bytes; `modes` holds the executable ones' modes. */
export interface Snapshot extends Map<string, Buffer> {
  readonly modes: Map<string, number>;
}

/** A snapshot of the given files (none executable). */
export function snapshotOf(entries: Iterable<[string, Buffer]> = []): Snapshot {
  return Object.assign(new Map<string, Buffer>(entries), { modes: new Map<string, number>() });
}

/** Reads every file under `dir` (except {@link SKIPPED_DIRS}) into a snapshot. */
export async function snapshotDir(dir: string): Promise<Snapshot> {
  const files = snapshotOf();
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(dir, relative), { withFileTypes: true })) {
      const file = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(file);
      } else if (entry.isFile()) {
        files.set(file, await readFile(path.join(dir, file)));
        const { mode } = await stat(path.join(dir, file));
        if ((mode & 0o111) !== 0) files.modes.set(file, mode & 0o777);
      }
    }
  };
  await walk('');
  return files;
}

/** True for bytes that are not text (a NUL in the first 8000 bytes, as git decides). */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/** A step that failed without stopping the replay (see `ReplayStep.optional`). */
export interface SkippedStep {
  title: string;
  reason: string;
}

/** An Output that sends everything the replayed commands print to `parent`'s --verbose output. */
function quietOutput(parent: Output, prefix: string): Output {
  return {
    info: (message) => parent.debug(`${prefix}${message}`),
    warn: (message) => parent.debug(`${prefix}warning: ${message}`),
    debug: (message) => parent.debug(`${prefix}${message}`),
  };
}

/** The context the replayed commands run with: in `dir`, writing, never asking, with the clock at `now`. */
export function replayContext(parent: Context, dir: string, now: Date): Context {
  return {
    ...parent,
    cwd: dir,
    dryRun: false,
    out: quietOutput(parent.out, '  (replay) '),
    prompter: {
      interactive: false,
      ask: async (question) => {
        if (question.initial !== undefined) return question.initial;
        throw new KopError(`the replay needs ${question.flag}, which PROJECT does not record`);
      },
    },
    now: () => new Date(now),
  };
}

/**
 * Runs the steps in-process, in order, in the empty folder `dir` (each step reads what the
 * previous ones wrote, as the commands would one after the other). A failing step stops the
 * replay with an error naming it, unless it is optional: then it is returned as skipped.
 */
export async function replayInProcess(
  steps: readonly ReplayStep[],
  dir: string,
  parent: Context,
  now: Date,
): Promise<SkippedStep[]> {
  const context = replayContext(parent, dir, now);
  const skipped: SkippedStep[] = [];
  for (const step of steps) {
    parent.out.debug(`replay: ${step.title}`);
    try {
      await step.run(context);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (step.optional) {
        skipped.push({ title: step.title, reason });
        continue;
      }
      throw new KopError(
        `rebuilding the project from PROJECT failed at \`kop ${step.title}\`: ${reason}`,
        'fix PROJECT (or the file the step names) and run the command again',
      );
    }
  }
  return skipped;
}

/** A kop installed or unpacked on this machine, to run as its own CLI. */
export interface KopInstallation {
  /** The package folder (holding package.json, bin/kop.js, dist/, templates/). */
  root: string;
  version: string;
}

/** True when the kop at `root` has `kop alpha generate`. */
export function hasAlphaGenerate(root: string): boolean {
  return existsSync(path.join(root, 'dist/commands/alpha.js'));
}

/**
 * Rebuilds the project with another kop, as a separate process: its own `alpha generate` when it
 * has one (it knows its own PROJECT best), else the steps' command lines one by one (steps that are
 * no command, such as copies, run in-process). `env` pins the clock (SOURCE_DATE_EPOCH).
 */
export async function replayWithKop(
  kop: KopInstallation,
  inputDir: string,
  steps: readonly ReplayStep[],
  dir: string,
  parent: Context,
  options: { now: Date; kopSource?: string },
): Promise<SkippedStep[]> {
  const bin = path.join(kop.root, 'bin/kop.js');
  const env = {
    ...parent.env,
    SOURCE_DATE_EPOCH: String(Math.floor(options.now.getTime() / 1000)),
    NO_COLOR: '1',
    CI: 'true',
  };
  const run = async (args: string[], title: string) => {
    parent.out.debug(`replay with kop ${kop.version}: kop ${args.join(' ')}`);
    const result = await parent.exec(process.execPath, [bin, ...args], { cwd: dir, env });
    for (const line of `${result.stdout}\n${result.stderr}`.split('\n'))
      if (line.trim() !== '') parent.out.debug(`  (kop ${kop.version}) ${line}`);
    if (result.exitCode !== 0) {
      const output = `${result.stderr.trim() || result.stdout.trim()}`.split('\n').slice(-5).join('\n');
      return `kop ${kop.version} ${title} exited with code ${result.exitCode}: ${output}`;
    }
    return undefined;
  };
  if (hasAlphaGenerate(kop.root)) {
    const args = [
      'alpha',
      'generate',
      '--input-dir',
      inputDir,
      '--output-dir',
      dir,
      ...(options.kopSource === undefined ? [] : ['--kop-source', options.kopSource]),
    ];
    const failure = await run(args, 'alpha generate');
    if (failure !== undefined)
      throw new KopError(
        `rebuilding the scaffold of kop ${kop.version} failed: ${failure}`,
        'pass --from with a kop that can rebuild it, or fix what it names',
      );
    return [];
  }
  const skipped: SkippedStep[] = [];
  const context = replayContext(parent, dir, options.now);
  for (const step of steps) {
    let failure: string | undefined;
    if (step.argv === undefined) {
      try {
        await step.run(context);
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
    } else {
      failure = await run(step.argv, step.title);
    }
    if (failure === undefined) continue;
    if (step.optional) skipped.push({ title: step.title, reason: failure });
    else
      throw new KopError(
        `rebuilding the scaffold of kop ${kop.version} failed at \`kop ${step.title}\`: ${failure}`,
        'pass --from with a kop that can rebuild it, or fix what it names',
      );
  }
  return skipped;
}
