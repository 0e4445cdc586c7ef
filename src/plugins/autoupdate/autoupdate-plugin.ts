import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { templatesRoot, type Context } from '../../base/index.js';
import type { FlushResult, VirtualTree } from '../../scaffold/index.js';
import type { PhaseHandlers } from '../../project/index.js';
import type { EditStep } from '../edit-step.js';

/** The workflow, where Kubebuilder's autoupdate plugin writes it. */
export const AUTO_UPDATE_WORKFLOW = '.github/workflows/auto_update.yml';

/** The workflow as kop writes it (templates/plugins/autoupdate/auto_update.yml, a plain file: its `${{ }}` are GitHub's). */
export async function autoUpdateWorkflow(): Promise<string> {
  return readFile(path.join(templatesRoot(), 'plugins/autoupdate/auto_update.yml'), 'utf8');
}

/**
 * `kop edit --plugins autoupdate/v1-alpha`: a GitHub Actions workflow that runs `kop alpha update`
 * with the newest kop once a week and proposes the result as a pull request (or an issue when the
 * merge left conflicts). Scaffolded once: the workflow is the user's, kept on later runs unless
 * `force` (`kop edit --force`).
 */
export async function stageAutoUpdateWorkflow(
  tree: VirtualTree,
  options: { force: boolean },
  context: Pick<Context, 'out'>,
): Promise<(result: FlushResult) => void> {
  await tree.scaffold(AUTO_UPDATE_WORKFLOW, await autoUpdateWorkflow(), { ifExists: 'skip', force: options.force });
  return (result) => {
    const written = result.changes.some(
      (change) => change.path === AUTO_UPDATE_WORKFLOW && (change.action === 'create' || change.action === 'update'),
    );
    if (!result.written || !written) return;
    context.out.info(
      `\nNext: commit ${AUTO_UPDATE_WORKFLOW}. It installs kop from the repository variable KOP_PACKAGE (default kop@latest; ` +
        'a tarball or git URL works too), and opens pull requests when "Allow GitHub Actions to create and approve pull requests" is on (Settings > Actions > General).',
    );
  };
}

/** The autoupdate plugin's handlers of kop edit's phases: it stages the workflow, then says what to do with it. */
export function autoUpdatePhases(): PhaseHandlers<EditStep> {
  let report: ((result: FlushResult) => void) | undefined;
  return {
    async scaffold(step) {
      report = await stageAutoUpdateWorkflow(step.tree, { force: step.force }, step.context);
    },
    postScaffold: (_step, result) => report?.(result),
  };
}
