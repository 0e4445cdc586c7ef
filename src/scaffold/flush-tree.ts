import * as path from 'node:path';
import { KopError, type Context } from '../base/index.js';
import { formatScaffoldedFiles } from './format.js';
import { lineDiff } from './line-diff.js';
import type { PlannedChange, VirtualTree } from './tree.js';

/** Work that runs after the files are written, such as `npm install`. */
export interface PostFlushTask {
  /** Shown on the progress line, e.g. `npm install`. */
  title: string;
  run(context: Context): Promise<void>;
  /** Told to the user when the task fails, e.g. `run npm install yourself`. */
  hint?: string;
}

export interface FlushOptions {
  tasks?: readonly PostFlushTask[];
}

/** What `flushTree` did. */
export interface FlushResult {
  changes: PlannedChange[];
  /** False on --dry-run. */
  written: boolean;
}

const LABELS = { create: 'CREATE', update: 'UPDATE', delete: 'DELETE', skip: 'SKIP' } as const;

/**
 * The last step of every generating command: prints the plan (CREATE / UPDATE / SKIP
 * per file, unchanged files omitted, "no changes" when there is nothing to do), stops
 * there on --dry-run, otherwise flushes the tree and runs the post-flush tasks with a
 * progress line each.
 */
export async function flushTree(tree: VirtualTree, context: Context, options: FlushOptions = {}): Promise<FlushResult> {
  const styles = context.out.styles;
  await formatScaffoldedFiles(tree);
  const changes = await tree.plan();
  const visible = changes.filter((change) => change.action !== 'unchanged');
  for (const change of visible) {
    const label = LABELS[change.action as keyof typeof LABELS].padEnd(6);
    const colored =
      change.action === 'create'
        ? styles?.green(label)
        : change.action === 'update'
          ? styles?.yellow(label)
          : change.action === 'delete'
            ? styles?.red(label)
            : styles?.dim(label);
    const shown = displayPath(tree.root, change.path, context.cwd);
    context.out.info(`${colored ?? label} ${shown}${change.reason ? ` (${change.reason})` : ''}`);
    // A file the user owns is only ever replaced under --force: show what changes in it.
    if (change.action === 'update' && change.kind === 'scaffolded') {
      const { before, after } = await tree.contents(change.path);
      for (const line of lineDiff(before ?? '', after ?? '')) context.out.info(line);
    }
  }
  const writes = visible.some(
    (change) => change.action === 'create' || change.action === 'update' || change.action === 'delete',
  );
  if (!writes) context.out.info('no changes');
  const tasks = options.tasks ?? [];
  if (context.dryRun) {
    for (const task of tasks) context.out.info(`would run: ${task.title}`);
    context.out.info('dry run: nothing was written');
    return { changes, written: false };
  }
  await tree.flush();
  for (const task of tasks)
    await runPostFlushTask(task, context, 'the files were written; fix the problem and run the step yourself');
  return { changes, written: true };
}

/** Runs one step after files are written, with a RUN/DONE progress line; a failure names the step and its hint. */
export async function runPostFlushTask(task: PostFlushTask, context: Context, fallbackHint?: string): Promise<void> {
  const styles = context.out.styles;
  const started = Date.now();
  context.out.info(`${styles?.cyan('RUN') ?? 'RUN'}    ${task.title} ...`);
  try {
    await task.run(context);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new KopError(`${task.title} failed: ${reason}`, task.hint ?? fallbackHint);
  }
  context.out.info(
    `${styles?.green('DONE') ?? 'DONE'}   ${task.title} (${((Date.now() - started) / 1000).toFixed(1)}s)`,
  );
}

/** The path as the user sees it: relative to where they ran kop. */
function displayPath(root: string, file: string, cwd: string): string {
  const relative = path.relative(cwd, path.join(root, file));
  return relative === '' || relative.startsWith('..') ? path.join(root, file) : relative.split(path.sep).join('/');
}
