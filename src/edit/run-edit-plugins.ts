import type { Context } from '../base/index.js';
import { loadProjectFile, saveProjectFile } from '../project/index.js';
import { flushTree, type FlushResult, VirtualTree } from '../scaffold/index.js';
import { recordedSettings, resolvePlugins, splitPluginNames } from '../plugins/index.js';

/** `kop edit`'s options. */
export interface EditOptions {
  /** Plugins to add, by any name `--plugins` accepts; a value may hold several, comma-separated. */
  plugins: string[];
  /** Replace files a plugin otherwise keeps or merges (helm: values.yaml). */
  force?: boolean;
}

/**
 * `kop edit --plugins a,b`: every plugin stages its files into one virtual tree, each is recorded
 * under its Kubebuilder key in PROJECT's `plugins:` (kept when already there, so a re-run keeps
 * its configuration), and the tree is written only when all of them succeeded.
 */
export async function runEdit(options: EditOptions, context: Context): Promise<FlushResult> {
  const plugins = resolvePlugins(splitPluginNames(options.plugins), 'edit');
  const tree = new VirtualTree(context.cwd);
  const project = await loadProjectFile(tree);
  const followUps: ((result: FlushResult) => void)[] = [];
  for (const plugin of plugins) {
    const followUp = await plugin.edit!({ tree, project, context, force: options.force ?? false });
    if (followUp) followUps.push(followUp);
    project.plugins = { ...project.plugins, [plugin.key]: recordedSettings(plugin, project) };
  }
  saveProjectFile(tree, project);
  const result = await flushTree(tree, context);
  for (const followUp of followUps) followUp(result);
  return result;
}
