import { KopError, type Context } from '../base/index.js';
import { PROJECT_FILE, loadProjectFile, saveProjectFile, type ProjectFile } from '../project/index.js';
import { flushTree, VirtualTree } from '../scaffold/index.js';
import type { GenerateOptions, GeneratorEntry } from './generator.js';

export interface RunGenerateOptions extends GenerateOptions {
  generators: readonly GeneratorEntry[];
}

/**
 * Runs the chosen generators into one tree, then either checks it against the disk
 * (`--check`: exits non-zero naming stale files) or applies it (plan, dry-run, flush).
 */
export async function runGenerate(options: RunGenerateOptions, context: Context): Promise<void> {
  const tree = new VirtualTree(context.cwd);
  const project = await loadProjectFile(tree);
  const effective = withProjectSettings(options, project);
  for (const entry of options.generators) {
    const generator = await entry.load();
    await generator.generate({ tree, project, context, options: effective });
  }
  if (!options.check) await recordGeneratedFiles(tree, project);
  if (options.check) {
    const stale = (await tree.plan()).filter(
      (change) => change.action === 'create' || change.action === 'update' || change.action === 'delete',
    );
    if (stale.length > 0) {
      throw new KopError(
        `generated files are stale: ${stale.map((change) => (change.action === 'delete' ? `${change.path} (no longer generated)` : change.path)).join(', ')}`,
        `run \`kop generate${options.generators.length === 1 ? ` ${options.generators[0]!.name}` : ''}\` and commit the result`,
      );
    }
    context.out.info('generated files are up to date');
    return;
  }
  await flushTree(tree, context);
}

/**
 * The options with PROJECT's settings filled in where the run gives none: every caller (`kop
 * generate`, `--check`, `kop dev`, `kop import`, `kop alpha update`) generates the same files.
 */
export function withProjectSettings<T extends GenerateOptions>(options: T, project: ProjectFile): T {
  return {
    ...options,
    maxDescriptionLength: options.maxDescriptionLength ?? project.crd?.maxDescriptionLength,
    allowDangerousTypes: options.allowDangerousTypes ?? project.crd?.allowDangerousTypes,
    generateEmbeddedObjectMeta: options.generateEmbeddedObjectMeta ?? project.crd?.generateEmbeddedObjectMeta,
  };
}

/**
 * Records in PROJECT which files kop generated for this project (what it wrote now, plus what
 * earlier runs of other generators recorded, less what it deletes), so that later runs delete
 * only files of their own.
 */
async function recordGeneratedFiles(tree: VirtualTree, project: ProjectFile): Promise<void> {
  const plan = await tree.plan();
  const deleted = new Set(plan.filter((c) => c.action === 'delete').map((c) => c.path));
  const written = plan
    .filter((c) => c.kind === 'generated' && c.action !== 'delete' && c.action !== 'skip' && c.path !== PROJECT_FILE)
    .map((c) => c.path);
  const generated = [...new Set([...(project.generated ?? []), ...written])]
    .filter((file) => !deleted.has(file))
    .sort();
  if (JSON.stringify(generated) !== JSON.stringify(project.generated ?? []))
    saveProjectFile(tree, { ...project, generated });
}
