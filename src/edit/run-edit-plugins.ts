import type { Context } from '../base/index.js';
import { runCommandPipeline, type PhaseHandlers } from '../project/index.js';
import type { FlushResult } from '../scaffold/index.js';
import { type EditStep, recordedSettings, resolvePlugins, splitPluginNames, type KopPlugin } from '../plugins/index.js';

/** `kop edit`'s options. */
export interface EditOptions {
  /** Plugins to add, by any name `--plugins` accepts; a value may hold several, comma-separated. */
  plugins: string[];
  /** Replace files a plugin otherwise keeps or merges (helm: values.yaml). */
  force?: boolean;
}

/**
 * The handlers the plugins of one `kop edit` run add to its phases: each plugin's own, and after
 * it staged its files, its record under its Kubebuilder key in PROJECT's `plugins:` (kept when
 * already there, so a re-run keeps its configuration).
 */
export async function editPluginPhases(plugins: readonly KopPlugin<'edit'>[]): Promise<PhaseHandlers<EditStep>[]> {
  const handlers: PhaseHandlers<EditStep>[] = [];
  for (const plugin of plugins) {
    const own = await plugin.phases({});
    handlers.push({
      ...own,
      async scaffold(step) {
        await own.scaffold?.(step);
        step.project.plugins = { ...step.project.plugins, [plugin.key]: recordedSettings(plugin, step.project) };
      },
    });
  }
  return handlers;
}

/**
 * `kop edit --plugins a,b`: every plugin stages its files into one virtual tree, each is recorded
 * in PROJECT, and the tree is written only when all of them succeeded.
 */
export async function runEdit(options: EditOptions, context: Context): Promise<FlushResult> {
  const plugins = resolvePlugins(splitPluginNames(options.plugins), 'edit');
  const handlers = await editPluginPhases(plugins);
  return runCommandPipeline(context, (base) => ({ ...base, force: options.force ?? false }), handlers);
}
