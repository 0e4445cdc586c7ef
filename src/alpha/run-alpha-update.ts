import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type Context, KopError, kopPackageRoot, kopVersion } from '../base/index.js';
import type { GeneratorEntry } from '../generate/index.js';
import {
  installedFromRegistry,
  isPackedSpec,
  kopSourceProblem,
  packKop,
  PACK_DIR,
  type PackedKop,
  npmInstallTask,
  stageKopPack,
} from '../init/index.js';
import { loadProjectFile, saveProjectFile } from '../project/index.js';
import { flushTree, runPostFlushTask, type FlushResult, type PostFlushTask, VirtualTree } from '../scaffold/index.js';
import { LOCKFILES, mergeProject, PACKAGE_JSON, type FileOutcome } from './merge-trees.js';
import { findOldKop } from './old-kop.js';
import { replaySteps } from './project-features.js';
import { isBinary, replayWithKop, snapshotDir, type SkippedStep } from './replay.js';
import { projectReader, rebuildProject, replayClock } from './run-alpha-generate.js';

/** `kop alpha update`'s flags. */
export interface AlphaUpdateOptions {
  /** The kop version that scaffolded the project, when PROJECT records none (or a wrong one). */
  fromVersion?: string;
  /** That kop itself: a tarball or a package folder. */
  from?: string;
  /** Do not install node_modules afterwards (a lockfile the project has is still written anew from the merged package.json). */
  skipInstall?: boolean;
  /** The generators of `kop generate`, run on the merged project (and in the rebuilt scaffolds). */
  generators?: readonly GeneratorEntry[];
}

/** What `kop alpha update` did. */
export interface AlphaUpdateResult extends FlushResult {
  fromVersion: string;
  toVersion: string;
  outcomes: FileOutcome[];
  /** Files left with conflict markers (or kept against kop's change). */
  conflicts: string[];
}

/**
 * How the updated project depends on kop: a spec the user chose (a git URL, a path) stays; a
 * registry range moves to this kop's version when this kop came from a registry; otherwise this
 * kop is packed into `.kop/` (as `kop update-pack` does).
 */
async function targetKopSource(
  recorded: string | undefined,
  projectDir: string,
  context: Context,
): Promise<{ spec: string; pack?: PackedKop }> {
  const fromRegistry = await installedFromRegistry(kopPackageRoot());
  const isRange = recorded !== undefined && /^[~^]?\d/.test(recorded);
  if (
    recorded !== undefined &&
    !isPackedSpec(recorded) &&
    !isRange &&
    kopSourceProblem(recorded, projectDir) === undefined
  )
    return { spec: recorded };
  if (fromRegistry) return { spec: `^${kopVersion()}` };
  const pack = await packKop(kopPackageRoot(), context.exec);
  return { spec: `file:${PACK_DIR}/${pack.filename}`, pack };
}

const LABELS: Record<FileOutcome['outcome'], string> = {
  merged: 'MERGED',
  conflict: 'CONFLICT',
  added: 'ADDED',
  taken: 'TAKEN',
  removed: 'REMOVED',
  regenerated: 'REGEN',
  kept: 'KEPT',
};

/**
 * `kop alpha update` (alias `kop upgrade`): moves the project to this kop's scaffold and keeps
 * your edits, by a three-way merge per file. The base is what the kop that scaffolded the project
 * (PROJECT's cliVersion, found in `.kop/` or node_modules, or --from) makes from PROJECT, run as
 * that kop; theirs is what this kop makes from PROJECT; ours is the project. See
 * {@link mergeProject} for the rules (package.json is merged by keys). Then the kop dependency
 * moves to this kop, PROJECT records its version, `kop generate` rewrites the generated files,
 * npm writes the lockfile anew from the merged package.json (never merged as text; left as it was,
 * with a warning, when npm cannot) and npm install runs. Files left with conflict markers make
 * the command fail after writing, naming them.
 */
export async function runAlphaUpdate(options: AlphaUpdateOptions, context: Context): Promise<AlphaUpdateResult> {
  const projectDir = context.cwd;
  const tree = new VirtualTree(projectDir);
  const project = await loadProjectFile(tree);
  const toVersion = kopVersion();
  const fromVersion = options.fromVersion ?? project.cliVersion;
  if (options.from === undefined && fromVersion === toVersion) {
    context.out.info(`The project was scaffolded by kop ${toVersion}, this kop: nothing to update.`);
    return { changes: [], written: false, fromVersion, toVersion, outcomes: [], conflicts: [] };
  }
  const old = await findOldKop(projectDir, { from: options.from, version: fromVersion }, context);
  const baseDir = await mkdtemp(path.join(tmpdir(), 'kop-update-base-'));
  try {
    const { read, list } = projectReader(projectDir);
    const now = await replayClock(read, context);
    context.out.info(`Rebuilding the scaffold of kop ${old.version} (base) and of kop ${toVersion} from PROJECT ...`);
    const baseSteps = await replaySteps({
      project,
      read,
      list,
      kopSource: project.kopSource,
      generators: options.generators,
    });
    const baseSkipped = await replayWithKop(old, projectDir, baseSteps, baseDir, context, {
      now,
      kopSource: project.kopSource,
    });
    const base = await snapshotDir(baseDir);
    const target = await targetKopSource(project.kopSource, projectDir, context);
    const {
      files: theirs,
      skipped,
      notes,
    } = await rebuildProject(projectDir, project, context, { kopSource: target.spec, generators: options.generators });
    reportSkipped(context, old.version, baseSkipped);
    reportSkipped(context, toVersion, skipped);
    for (const note of notes) context.out.warn(note);

    const outcomes = await mergeProject(base, theirs, (file) => readBytes(projectDir, file), `kop ${toVersion}`);
    for (const outcome of outcomes) {
      if (outcome.outcome === 'kept') continue;
      if (outcome.content === undefined) {
        if (outcome.outcome === 'removed') tree.remove(outcome.path);
      } else {
        // A new file takes kop's mode (an executable script stays one); a changed file keeps its own.
        const mode = outcome.outcome === 'added' ? theirs.modes.get(outcome.path) : undefined;
        if (isBinary(outcome.content)) tree.writeBinary(outcome.path, outcome.content, { mode });
        else tree.write(outcome.path, outcome.content.toString('utf8'), { kind: 'inserted', mode });
      }
    }
    await stageKopPack(tree, target.spec, target.pack);
    saveProjectFile(tree, { ...project, kopSource: target.spec, cliVersion: toVersion });

    const conflicts = outcomes.filter((outcome) => outcome.outcome === 'conflict').map((outcome) => outcome.path);
    printOutcomes(context, outcomes);
    const tasks: PostFlushTask[] = [];
    if (options.generators !== undefined && conflicts.length === 0) {
      const generators = options.generators;
      tasks.push({
        title: 'kop generate',
        hint: 'the merged files were written; fix what it names and run `kop generate`',
        run: async (ctx) => {
          const { runGenerate } = await import('../generate/index.js');
          await runGenerate({ check: false, generators }, ctx);
        },
      });
    }
    const packageJson = outcomes.find((outcome) => outcome.path === PACKAGE_JSON);
    const lockfile = packageJsonChanged(packageJson) ? await presentLockfile(projectDir) : undefined;
    const install = options.skipInstall ? undefined : npmInstallTask(projectDir, target.spec);
    const dependencySteps = [...(lockfile === undefined ? [] : [lockfileTask(lockfile, target.spec)]), install];
    // On --dry-run the plan lists them; otherwise they run after the files are written, as below.
    const planned = context.dryRun ? dependencySteps.filter((task) => task !== undefined) : [];
    const result = await flushTree(tree, context, { tasks: [...tasks, ...planned] });
    if (result.written) {
      if (packageJson?.outcome === 'conflict') {
        context.out.warn(
          `package.json has conflicts, so ${lockfile ?? 'package-lock.json'} and node_modules are left as they were: resolve package.json, then run \`npm install\``,
        );
      } else {
        const locked = lockfile === undefined || (await regenerateLockfile(lockfile, target.spec, context));
        if (install !== undefined && locked) await runPostFlushTask(install, context);
      }
    }
    const summary = { fromVersion: old.version, toVersion, outcomes, conflicts };
    if (conflicts.length > 0) {
      const message = `${conflicts.length} file${conflicts.length === 1 ? '' : 's'} with conflicts: ${conflicts.join(', ')}`;
      if (!result.written) {
        context.out.warn(`the update would leave ${message}`);
        return { ...result, ...summary };
      }
      throw new KopError(
        `kop alpha update from ${old.version} to ${toVersion} left ${message}`,
        `resolve the <<<<<<< ours / >>>>>>> kop ${toVersion} blocks, then run \`kop generate\` and your tests`,
      );
    }
    if (result.written)
      context.out.info(`
The project is on kop ${toVersion}. Review the changes (git diff), build and test.`);
    return { ...result, ...summary };
  } finally {
    await old.dispose();
    await rm(baseDir, { recursive: true, force: true });
  }
}

/** True when the merge writes a new package.json (kop's, or the merge of both without conflicts). */
function packageJsonChanged(outcome: FileOutcome | undefined): boolean {
  return outcome !== undefined && ['taken', 'added', 'merged'].includes(outcome.outcome);
}

/** The npm lockfile the project has (npm-shrinkwrap.json wins, as with npm), if any. */
async function presentLockfile(projectDir: string): Promise<string | undefined> {
  for (const file of [...LOCKFILES].reverse())
    if ((await readBytes(projectDir, file)) !== undefined) return path.join(projectDir, file);
  return undefined;
}

/** The command that rewrites the lockfile from package.json without installing or running any package's scripts. */
function lockfileArgs(kopSpec: string): string[] {
  // A packed kop is named, as npmInstallTask does, so a tarball refreshed under the same name gets its new integrity.
  const kop = isPackedSpec(kopSpec) ? [`kop@${kopSpec}`] : [];
  return ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', ...kop];
}

function lockfileTask(lockfile: string, kopSpec: string): PostFlushTask {
  return {
    title: `npm ${lockfileArgs(kopSpec).join(' ')} (${path.basename(lockfile)})`,
    run: async () => {},
  };
}

/**
 * Writes the lockfile anew for the merged package.json with npm (a merge of lockfile text is
 * either conflicted or wrong). When npm fails (offline, most often) the lockfile is left as it
 * was, valid but describing the old package.json, and the user is told how to finish; false then.
 */
async function regenerateLockfile(lockfile: string, kopSpec: string, context: Context): Promise<boolean> {
  const styles = context.out.styles;
  const args = lockfileArgs(kopSpec);
  const name = path.basename(lockfile);
  const started = Date.now();
  context.out.info(`${styles?.cyan('RUN') ?? 'RUN'}    npm ${args.join(' ')} ...`);
  const result = await context.exec('npm', args, { cwd: path.dirname(lockfile) });
  if (result.exitCode === 0) {
    context.out.info(
      `${styles?.green('DONE') ?? 'DONE'}   ${name} regenerated from the merged package.json (${((Date.now() - started) / 1000).toFixed(1)}s)`,
    );
    return true;
  }
  const said = (result.stderr.trim() || result.stdout.trim()).split('\n').slice(-3).join(' ');
  context.out.warn(
    `${name} was not regenerated: npm exited with code ${result.exitCode}${said ? ` (${said})` : ''}. ` +
      `It is left as it was, describing the old package.json: run \`npm install\` (or \`npm ${args.join(' ')}\`) once npm can reach its registry.`,
  );
  return false;
}

async function readBytes(dir: string, file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path.join(dir, file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

function reportSkipped(context: Context, version: string, skipped: readonly SkippedStep[]): void {
  for (const step of skipped)
    context.out.warn(
      `kop ${version}: \`kop ${step.title}\` failed while rebuilding its scaffold, so the merge does without its files: ${step.reason}`,
    );
}

/** The merge plan, one line per file, then the counts. */
function printOutcomes(context: Context, outcomes: readonly FileOutcome[]): void {
  const styles = context.out.styles;
  const color = (outcome: FileOutcome['outcome'], text: string) =>
    outcome === 'conflict'
      ? (styles?.red(text) ?? text)
      : outcome === 'kept'
        ? (styles?.dim(text) ?? text)
        : (styles?.cyan(text) ?? text);
  for (const outcome of outcomes) {
    const note =
      outcome.outcome === 'conflict'
        ? ` (${outcome.reason ?? `${outcome.conflicts} conflict${outcome.conflicts === 1 ? '' : 's'}`})`
        : outcome.outcome === 'kept'
          ? ` (${outcome.reason})`
          : outcome.outcome === 'regenerated'
            ? ' (generated: kop generate rewrites it)'
            : '';
    context.out.info(`${color(outcome.outcome, LABELS[outcome.outcome].padEnd(8))} ${outcome.path}${note}`);
  }
  const count = (kind: FileOutcome['outcome']) => outcomes.filter((outcome) => outcome.outcome === kind).length;
  context.out.info(
    `merge: ${count('merged')} merged, ${count('conflict')} with conflicts, ${count('added')} added, ${count('taken')} taken from kop, ${count('removed')} removed, ${count('regenerated')} regenerated, ${count('kept')} kept as yours`,
  );
}
