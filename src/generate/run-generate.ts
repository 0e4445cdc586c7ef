import { KopError } from '../base/errors.js';
import type { Context } from '../base/context.js';
import { loadProjectFile } from '../project/project-file.js';
import { applyTree } from '../scaffold/apply.js';
import { VirtualTree } from '../scaffold/tree.js';
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
  for (const entry of options.generators) {
    const generator = await entry.load();
    await generator.generate({ tree, project, context, options });
  }
  if (options.check) {
    const stale = (await tree.plan()).filter((change) => change.action === 'create' || change.action === 'update' || change.action === 'delete');
    if (stale.length > 0) {
      throw new KopError(
        `generated files are stale: ${stale.map((change) => (change.action === 'delete' ? `${change.path} (no longer generated)` : change.path)).join(', ')}`,
        `run \`kop generate${options.generators.length === 1 ? ` ${options.generators[0]!.name}` : ''}\` and commit the result`,
      );
    }
    context.out.info('generated files are up to date');
    return;
  }
  await applyTree(tree, context);
}
