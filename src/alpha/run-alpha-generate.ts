import { cp, mkdir, mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type Context, UsageError } from '../base/index.js';
import type { GeneratorEntry } from '../generate/index.js';
import { isPackedSpec, kopSourceProblem } from '../init/index.js';
import { loadProjectFile, type ProjectFile } from '../project/index.js';
import { flushTree, type FlushResult, BOILERPLATE_FILE, isGenerated, VirtualTree } from '../scaffold/index.js';
import { parseBoilerplate, replaySteps, type ReplayInput } from './project-features.js';
import { isBinary, replayInProcess, snapshotDir, type SkippedStep, type Snapshot } from './replay.js';

/** `kop alpha generate`'s flags. */
export interface AlphaGenerateOptions {
  /** The project whose PROJECT is replayed (default: the current folder). */
  inputDir?: string;
  /** Where the re-scaffolded project goes (default: the input folder, in place). */
  outputDir?: string;
  /** The kop dependency of the re-scaffolded project (as `init --kop-source`). */
  kopSource?: string;
  /** The generators of `kop generate`, run last; without them nothing is generated. */
  generators?: readonly GeneratorEntry[];
}

/** What `kop alpha generate` did. */
export interface AlphaGenerateResult extends FlushResult {
  outputDir: string;
  /** Steps that failed without stopping the replay (generate, plugins). */
  skipped: SkippedStep[];
  /** Where the files an in-place run replaced were copied first. */
  backupDir?: string;
}

/**
 * The clock the replay runs at: the year `kop init` wrote into hack/boilerplate.txt, so that
 * the license headers of the re-scaffolded files carry the project's year, not today's.
 */
export async function replayClock(
  read: (file: string) => Promise<string | undefined>,
  context: Pick<Context, 'now'>,
): Promise<Date> {
  const year = parseBoilerplate(await read(BOILERPLATE_FILE)).year;
  return year === undefined ? context.now() : new Date(Date.UTC(year, 0, 1));
}

/**
 * Rebuilds the project `inputDir` describes into a temporary folder with this kop (the steps of
 * project-features.ts, in-process) and returns the folder's snapshot; the folder is removed.
 */
export async function rebuildProject(
  inputDir: string,
  project: ProjectFile,
  context: Context,
  options: { kopSource?: string; generators?: readonly GeneratorEntry[] },
): Promise<{ files: Snapshot; skipped: SkippedStep[]; notes: string[] }> {
  const { read, list } = projectReader(inputDir);
  const steps = await replaySteps({
    project,
    read,
    list,
    kopSource: options.kopSource,
    generators: options.generators,
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'kop-rebuild-'));
  try {
    const skipped = await replayInProcess(steps, dir, context, await replayClock(read, context));
    const notes = steps.flatMap((step) => (step.note === undefined ? [] : [step.note]));
    return { files: await snapshotDir(dir), skipped, notes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads the files of a project folder for the replay: one file, or the files under a folder (skipping node_modules, .git, .kop). */
export function projectReader(dir: string): Pick<ReplayInput, 'read' | 'list'> {
  const tree = new VirtualTree(dir);
  return {
    read: async (file) => {
      const info = await stat(path.join(dir, file)).catch(() => undefined);
      return info?.isFile() ? tree.read(file) : undefined;
    },
    list: async (folder) => {
      const info = await stat(path.join(dir, folder)).catch(() => undefined);
      if (!info?.isDirectory()) return [];
      return [...(await snapshotDir(path.join(dir, folder))).keys()].map((file) => `${folder}/${file}`).sort();
    },
  };
}

/** A recorded kop dependency that still installs from `dir` and is not a tarball in `.kop/` (which this kop replaces with itself). */
export function keptKopSource(recorded: string | undefined, dir: string): string | undefined {
  if (recorded === undefined || isPackedSpec(recorded)) return undefined;
  return kopSourceProblem(recorded, dir) === undefined ? recorded : undefined;
}

/**
 * `kop alpha generate` (Kubebuilder's): re-scaffolds the project from its PROJECT with this kop —
 * init with PROJECT's identity, create api for each kind, create webhook for each webhook, the
 * plugins it uses, then kop generate — into `outputDir`. Into another folder, which must be empty,
 * it makes a fresh copy to compare with; in place (the default), every file it scaffolds replaces
 * the project's, after the replaced files are copied to a backup folder, and files it does not
 * scaffold stay. Nothing is written when the replay fails.
 */
export async function runAlphaGenerate(options: AlphaGenerateOptions, context: Context): Promise<AlphaGenerateResult> {
  const inputDir = path.resolve(context.cwd, options.inputDir ?? '.');
  const project = await loadProjectFile(new VirtualTree(inputDir));
  const outputDir = path.resolve(context.cwd, options.outputDir ?? inputDir);
  const outputExists = await realpath(outputDir).then(
    () => true,
    () => false,
  );
  const inPlace = (await realpath(outputDir).catch(() => outputDir)) === (await realpath(inputDir));
  if (!inPlace) {
    const present = await readdir(outputDir).catch(() => [] as string[]);
    if (present.length > 0)
      throw new UsageError(
        `--output-dir ${outputDir} is not empty`,
        'name an empty or new folder, or leave --output-dir out to re-scaffold in place',
      );
  }
  const kopSource = options.kopSource ?? keptKopSource(project.kopSource, outputDir);
  const { files, skipped, notes } = await rebuildProject(inputDir, project, context, {
    kopSource,
    generators: options.generators,
  });
  for (const note of notes) context.out.warn(note);

  for (const step of skipped)
    context.out.warn(`\`kop ${step.title}\` failed, so its files are missing: ${step.reason}`);
  if (!outputExists) {
    if (context.dryRun) {
      for (const file of files.keys())
        context.out.info(`CREATE ${path.join(path.relative(context.cwd, outputDir), file)}`);
      context.out.info('dry run: nothing was written');
      return {
        changes: [...files.keys()].map((file) => ({ path: file, action: 'create', kind: 'inserted' })),
        written: false,
        outputDir,
        skipped,
      };
    }
    await mkdir(outputDir, { recursive: true });
  }
  const tree = new VirtualTree(outputDir);
  for (const [file, bytes] of files) {
    const mode = files.modes.get(file);
    if (isBinary(bytes)) tree.writeBinary(file, bytes, { mode });
    else {
      const text = bytes.toString('utf8');
      tree.write(file, text, { kind: isGenerated(text) ? 'generated' : 'inserted', mode });
    }
  }

  let backupDir: string | undefined;
  if (inPlace && !context.dryRun) {
    const replaced = (await tree.plan()).filter((change) => change.action === 'update');
    if (replaced.length > 0) {
      backupDir = await mkdtemp(path.join(tmpdir(), `kop-alpha-generate-backup-${project.projectName}-`));
      for (const change of replaced) await cp(path.join(outputDir, change.path), path.join(backupDir, change.path));
      context.out.info(`The ${replaced.length} files replaced below were copied to ${backupDir} first.`);
    }
  }
  const result = await flushTree(tree, context);
  if (result.written) {
    context.out.info(
      inPlace
        ? '\nRe-scaffolded in place: compare with your version control (git diff) and bring your code back where the scaffold replaced it.'
        : `\nRe-scaffolded into ${outputDir} (run npm install there to build it): compare it with the project, or run \`kop alpha update\` in the project for a three-way merge.`,
    );
  }
  return { ...result, outputDir, skipped, backupDir };
}
