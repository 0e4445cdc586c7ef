import type { Context } from '../base/context.js';
import { UsageError } from '../base/errors.js';
import { runCreateApi, type CreateApiOptions } from '../create-api/run-create-api.js';
import type { ApplyResult } from '../scaffold/apply.js';
import { runDeployImage, type DeployImageFlags } from './deploy-image/run-deploy-image.js';
import { DEPLOY_IMAGE_PLUGIN, resolvePlugins, splitPluginNames } from './registry.js';

/** `kop create api`'s options with `--plugins` and the deploy-image flags. */
export interface CreateApiWithPluginsOptions extends CreateApiOptions, DeployImageFlags {
  /** `--plugins a,b` (given once or more). */
  plugins?: string[];
}

const IMAGE_FLAGS: readonly [keyof DeployImageFlags, string][] = [
  ['image', '--image'],
  ['imageContainerCommand', '--image-container-command'],
  ['imageContainerPort', '--image-container-port'],
  ['runAsUser', '--run-as-user'],
];

/**
 * `kop create api [--plugins ...]`: without plugins, create api itself; with
 * `deploy-image/v1-alpha`, the deploy-image scaffold. The deploy-image flags without that plugin
 * are an error rather than silently ignored.
 */
export async function runCreateApiWithPlugins(
  options: CreateApiWithPluginsOptions,
  context: Context,
): Promise<ApplyResult> {
  const { plugins: names, image, imageContainerCommand, imageContainerPort, runAsUser, ...createApi } = options;
  const plugins = names === undefined ? [] : resolvePlugins(splitPluginNames(names), 'create api');
  const deployImage = plugins.some((plugin) => plugin.key === DEPLOY_IMAGE_PLUGIN);
  if (!deployImage) {
    const given = IMAGE_FLAGS.find(([field]) => options[field] !== undefined);
    if (given)
      throw new UsageError(
        `${given[1]} belongs to the deploy-image plugin`,
        `add --plugins deploy-image/v1-alpha, or leave out ${given[1]}`,
      );
    return runCreateApi(createApi, context);
  }
  return runDeployImage({ ...createApi, image, imageContainerCommand, imageContainerPort, runAsUser }, context);
}
