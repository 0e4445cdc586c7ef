/**
 * The one pipeline every scaffolding command runs (`create api`, `create webhook`, `edit`), with
 * the phases of Kubebuilder's plugin subcommands: bind the flags, resolve the resource, check
 * before scaffolding, scaffold, and report after the files are written. A command is a list of
 * {@link PhaseHandlers}: its own first, then those of the plugins `--plugins` named, so a plugin
 * adds to a command by handling phases rather than by wrapping the command's run.
 *
 * Everything up to and including `scaffold` stages into one virtual tree and one PROJECT; the
 * pipeline saves PROJECT and writes the tree only once every handler of every phase succeeded
 * (one failure anywhere means nothing is written), then runs `postScaffold` with what was written.
 */
import type { Context } from '../base/index.js';
import { flushTree, type FlushResult, VirtualTree } from '../scaffold/index.js';
import { loadProjectFile, saveProjectFile, type ProjectFile } from './project-file.js';

/** The phases before the flush, in the order they run. */
export const STAGING_PHASES = ['bindFlags', 'resolve', 'preScaffold', 'scaffold'] as const;

/** One phase before the flush. */
export type StagingPhase = (typeof STAGING_PHASES)[number];

/** What every phase of one command run shares; a command extends it with the state its phases fill in. */
export interface CommandStep {
  readonly context: Context;
  /** The plan: every file the run writes, staged. */
  readonly tree: VirtualTree;
  /** PROJECT as read at the start, changed in place by the phases, saved before the flush. */
  readonly project: ProjectFile;
}

/** One participant's handlers, by phase; a phase it has nothing to do in is left out. */
export interface PhaseHandlers<Step extends CommandStep> {
  /** Checks and completes the flags (a plugin: its own flags, or what it forces on the command's). */
  bindFlags?(step: Step): void | Promise<void>;
  /** Finds the resource the command works on: asks for what the flags left out, and where the kind comes from. */
  resolve?(step: Step): void | Promise<void>;
  /** The checks that refuse the run before anything is staged, and the values the templates need. */
  preScaffold?(step: Step): void | Promise<void>;
  /** Stages files into `step.tree` and records the run in `step.project`. */
  scaffold?(step: Step): void | Promise<void>;
  /** After the flush: what to tell the user, from what was written. */
  postScaffold?(step: Step, result: FlushResult): void | Promise<void>;
}

/**
 * Runs `phases` of every handler set in order, into the step's tree and PROJECT, without writing:
 * a command that stages another's work in its own plan (`create api --conversion` stages create
 * webhook's) runs that command's handlers through this.
 */
export async function runPhases<Step extends CommandStep>(
  step: Step,
  handlers: readonly PhaseHandlers<Step>[],
  phases: readonly StagingPhase[] = STAGING_PHASES,
): Promise<void> {
  for (const phase of phases) for (const handler of handlers) await handler[phase]?.(step);
}

/**
 * One command run: reads PROJECT from `context.cwd`, builds the command's step from it, runs every
 * staging phase of `handlers`, saves PROJECT, writes the tree (or prints the plan with --dry-run)
 * and runs `postScaffold`.
 */
export async function runCommandPipeline<Step extends CommandStep>(
  context: Context,
  makeStep: (base: CommandStep) => Step,
  handlers: readonly PhaseHandlers<Step>[],
): Promise<FlushResult> {
  const tree = new VirtualTree(context.cwd);
  const project = await loadProjectFile(tree);
  const step = makeStep({ context, tree, project });
  await runPhases(step, handlers);
  saveProjectFile(tree, step.project);
  const result = await flushTree(tree, context);
  for (const handler of handlers) await handler.postScaffold?.(step, result);
  return result;
}
