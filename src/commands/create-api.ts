import type { Command } from 'commander';
import { CREATE_API_FLAGS } from '../create-api/create-api-flags.js';
import { CREATE_API_PLUGIN_FLAGS } from '../plugins/deploy-image/deploy-image-flags.js';
import type { CreateApiWithPluginsOptions } from '../plugins/index.js';
import { createCommandGroup, type MakeContext } from './command-module.js';
import { addFlags } from './flag-options.js';

/**
 * `kop create api`: adds a kind (or a version of one) with its types, sample and reconciler.
 * `create` is a command group so that later `kop create <thing>` commands join it.
 */
export function register(program: Command, makeContext: MakeContext): void {
  const create = createCommandGroup(program);
  const api = create
    .command('api')
    .description('add an API kind (or a new version of one): types, sample, reconciler, PROJECT entry');
  addFlags(api, [...CREATE_API_FLAGS, ...CREATE_API_PLUGIN_FLAGS])
    // The flags' fields are CreateApiWithPluginsOptions' (both tables), and an absent flag means "ask or default".
    .action(async (flags: CreateApiWithPluginsOptions) => {
      const { runCreateApiWithPlugins } = await import('../plugins/index.js');
      await runCreateApiWithPlugins(flags, makeContext());
    });
}
