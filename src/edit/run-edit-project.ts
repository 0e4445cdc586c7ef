import { rmdir } from 'node:fs/promises';
import * as path from 'node:path';
import { type Context, KopError, UsageError } from '../base/index.js';
import { type EditStep, resolvePlugins, splitPluginNames } from '../plugins/index.js';
import { editPluginPhases, runEdit } from './run-edit-plugins.js';
import {
  runCommandPipeline,
  type PhaseHandlers,
  type ProjectFile,
  CREATE_API_PATHS,
  MAIN_WEBHOOK_CALL,
  rewireControllers,
} from '../project/index.js';
import { type FlushResult, insertIntoFile, type VirtualTree } from '../scaffold/index.js';
import { stageMultigroupEdit, type Obstacles } from './edit-multigroup.js';
import { stageNamespacedEdit } from './edit-namespaced.js';

/** `kop edit`'s options: plugins to add and/or the project layout to change (Kubebuilder's `edit` flags). */
export interface EditProjectOptions {
  plugins?: string[];
  /** `--multigroup[=false]`: reconcilers by group (see edit-multigroup.ts). */
  multigroup?: boolean;
  /** `--namespaced[=false]`: Role + WATCH_NAMESPACE, or ClusterRole (see edit-namespaced.ts). */
  namespaced?: boolean;
  /** Go ahead where a user's edit is in the way (and helm: replace values.yaml). */
  force?: boolean;
  /**
   * `--max-description-length <bytes>|none`: the project's cap on CRD descriptions (PROJECT's
   * `crd.maxDescriptionLength`), which every command that generates CRDs follows; `none` removes it.
   */
  maxDescriptionLength?: number | string;
  /**
   * `--allow-dangerous-types[=false]`: the project's CRDs map TypeScript `number` to `type: number`
   * (PROJECT's `crd.allowDangerousTypes`, controller-gen's `crd:allowDangerousTypes`).
   */
  allowDangerousTypes?: boolean;
  /**
   * `--generate-embedded-object-meta[=false]`: embedded ObjectMeta gets its properties in the
   * project's CRDs (PROJECT's `crd.generateEmbeddedObjectMeta`, controller-gen's `crd:generateEmbeddedObjectMeta`).
   */
  generateEmbeddedObjectMeta?: boolean;
}

/** The boolean CRD settings of PROJECT, each set by the `kop edit` flag of the same name. */
const CRD_SWITCHES = ['allowDangerousTypes', 'generateEmbeddedObjectMeta'] as const;

/** `--max-description-length`'s value: bytes, or undefined for `none` (no cap). */
export function parseMaxDescriptionLength(value: number | string): number | undefined {
  if (value === 'none') return undefined;
  const bytes = typeof value === 'number' ? value : /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new UsageError(
      `--max-description-length must be a whole number of bytes or none, not "${String(value)}"`,
      '0 removes descriptions; 512 keeps their first 512 bytes; none keeps them whole',
    );
  }
  return bytes;
}

/**
 * `kop edit`: changes the layout (multigroup, namespaced) and adds plugins, all staged into one
 * tree and written only when every step succeeded. Where the user's edits are in the way of a
 * layout change, nothing is written unless --force; every obstacle is named. The layout and CRD
 * settings are the command's own phase handlers, before the plugins' (and its closing note after).
 */
export async function runEditProject(options: EditProjectOptions, context: Context): Promise<FlushResult> {
  const plugins = options.plugins !== undefined ? splitPluginNames(options.plugins) : [];
  const setsDescriptionCap = options.maxDescriptionLength !== undefined;
  const descriptionCap = setsDescriptionCap ? parseMaxDescriptionLength(options.maxDescriptionLength!) : undefined;
  const setsCrdSwitch = CRD_SWITCHES.some((name) => options[name] !== undefined);
  if (options.multigroup === undefined && options.namespaced === undefined && !setsDescriptionCap && !setsCrdSwitch) {
    if (options.plugins === undefined) {
      throw new UsageError(
        'kop edit: nothing to do',
        'pass --plugins <names>, --multigroup[=true|false], --namespaced[=true|false], --max-description-length <bytes>, --allow-dangerous-types[=true|false] or --generate-embedded-object-meta[=true|false] (see `kop edit --help`)',
      );
    }
    return runEdit({ plugins: options.plugins, force: options.force }, context);
  }
  // Checked before anything is staged.
  const resolved = plugins.length > 0 ? resolvePlugins(plugins, 'edit') : [];
  const layout = editLayoutPhases(options, descriptionCap);
  const handlers = [layout.phases, ...(await editPluginPhases(resolved)), layout.closing];
  return runCommandPipeline(context, (base) => ({ ...base, force: options.force ?? false }), handlers);
}

/**
 * kop edit's own handlers: the layout and CRD settings staged before the plugins stage theirs,
 * and, once all is written, the folders the move left empty removed and the notes printed
 * (before the plugins' reports), then what to run next (after them).
 */
function editLayoutPhases(
  options: EditProjectOptions,
  descriptionCap: number | undefined,
): { phases: PhaseHandlers<EditStep>; closing: PhaseHandlers<EditStep> } {
  const notes: string[] = [];
  const vacated: string[] = [];
  let regenerate = false;
  const phases: PhaseHandlers<EditStep> = {
    async scaffold(step) {
      const { tree, project, force, context } = step;
      const obstacles: Obstacles = [];
      if (options.multigroup !== undefined) {
        if ((project.multigroup === true) === options.multigroup)
          notes.push(`the project is ${options.multigroup ? 'already' : 'not'} multigroup: nothing to move`);
        else {
          const staged = await stageMultigroupEdit(tree, project, options.multigroup, force, obstacles);
          notes.push(...staged.notes);
          vacated.push(...staged.vacated);
        }
      }
      if (options.namespaced !== undefined) {
        if ((project.namespaced === true) === options.namespaced) {
          notes.push(`the project is ${options.namespaced ? 'already' : 'not'} namespaced: nothing to switch`);
        } else {
          const { notes: more, replaced } = await stageNamespacedEdit(
            tree,
            project,
            options.namespaced,
            force,
            obstacles,
            context,
          );
          notes.push(...more);
          if (replaced.includes(CREATE_API_PATHS.main)) await rewireMain(tree, project);
        }
      }
      if (obstacles.length > 0 && !force) {
        throw new KopError(
          `kop edit wrote nothing: your edits are in the way:\n${obstacles.map((o) => `  - ${o}`).join('\n')}`,
          "change those lines back to what kop wrote, or pass --force (a conflicting file gets kop's version; compare it with version control)",
        );
      }
      for (const obstacle of obstacles) context.out.warn(`--force: ${obstacle}`);
      if (options.maxDescriptionLength !== undefined && project.crd?.maxDescriptionLength !== descriptionCap) {
        const { maxDescriptionLength: _previous, ...otherSettings } = project.crd ?? {};
        project.crd =
          descriptionCap === undefined ? otherSettings : { ...otherSettings, maxDescriptionLength: descriptionCap };
        regenerate = true;
      }
      for (const name of CRD_SWITCHES) {
        const wanted = options[name];
        if (wanted === undefined || (project.crd?.[name] === true) === wanted) continue;
        // Recorded only when on: off is controller-gen's default, and PROJECT stays as short as the project's choices.
        const { [name]: _previous, ...otherSettings } = project.crd ?? {};
        project.crd = wanted ? { ...otherSettings, [name]: true } : otherSettings;
        regenerate = true;
      }
      if (project.crd !== undefined && Object.keys(project.crd).length === 0) delete project.crd;
    },
    async postScaffold(step, result) {
      if (result.written) {
        // rmdir removes only an empty folder: one holding anything else of the user's stays.
        for (const dir of vacated) await rmdir(path.join(step.context.cwd, dir)).catch(() => undefined);
      }
      for (const note of notes) step.context.out.info(note);
    },
  };
  const closing: PhaseHandlers<EditStep> = {
    postScaffold(step, result) {
      if (result.written && (options.namespaced !== undefined || regenerate))
        step.context.out.info('Next: `npm run generate` and `npm test`.');
    },
  };
  return { phases, closing };
}

/** main.ts replaced under --force: the project's reconcilers and webhooks go back at its markers. */
async function rewireMain(tree: VirtualTree, project: ProjectFile): Promise<void> {
  await rewireControllers(tree, project);
  if (await tree.exists('src/webhooks/setup.ts')) {
    await insertIntoFile(tree, CREATE_API_PATHS.main, [
      { marker: 'imports', code: "import { setupWebhooks } from './webhooks/setup.js';" },
      { marker: 'controllers', code: MAIN_WEBHOOK_CALL },
    ]);
  }
}
