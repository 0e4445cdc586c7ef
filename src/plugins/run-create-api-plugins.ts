import { type Context, UsageError } from '../base/index.js';
import { runCreateApi, type CreateApiOptions } from '../create-api/index.js';
import type { FlushResult } from '../scaffold/index.js';
import { fieldOf } from '../project/command-flags.js';
import { CREATE_API_PLUGIN_FLAGS, type CreateApiPluginFlags } from './deploy-image/deploy-image-flags.js';
import { DEPLOY_IMAGE_PLUGIN, resolvePlugins, splitPluginNames } from './registry.js';

/** `kop create api`'s options with `--plugins` and the deploy-image flags. */
export type CreateApiWithPluginsOptions = CreateApiOptions & CreateApiPluginFlags;

/** The deploy-image flags, by field and spelling: given without the plugin, they are an error. */
const IMAGE_FLAGS = CREATE_API_PLUGIN_FLAGS.filter((spec) => spec.name !== 'plugins').map(
  (spec) => [fieldOf(spec.name) as keyof CreateApiPluginFlags, `--${spec.name}`] as const,
);

/**
 * `kop create api [--plugins ...]`: create api's phases, then those of each plugin named (with
 * `deploy-image/v1-alpha`, the deploy-image scaffold). The deploy-image flags without that plugin
 * are an error rather than silently ignored.
 */
export async function runCreateApiWithPlugins(
  options: CreateApiWithPluginsOptions,
  context: Context,
): Promise<FlushResult> {
  const { plugins: names, image, imageContainerCommand, imageContainerPort, runAsUser, ...createApi } = options;
  const plugins = names === undefined ? [] : resolvePlugins(splitPluginNames(names), 'create api');
  if (!plugins.some((plugin) => plugin.key === DEPLOY_IMAGE_PLUGIN)) {
    const given = IMAGE_FLAGS.find(([field]) => options[field] !== undefined);
    if (given)
      throw new UsageError(
        `${given[1]} belongs to the deploy-image plugin`,
        `add --plugins deploy-image/v1-alpha, or leave out ${given[1]}`,
      );
  }
  const pluginFlags = { image, imageContainerCommand, imageContainerPort, runAsUser };
  const handlers = await Promise.all(plugins.map((plugin) => plugin.phases(pluginFlags)));
  return runCreateApi(createApi, context, handlers);
}
