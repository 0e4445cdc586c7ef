import type { Command } from 'commander';
import type { InitOptions } from '../init/index.js';
import { INIT_FLAGS } from '../init/init-flags.js';
import type { MakeContext } from './command-module.js';
import { addFlags } from './flag-options.js';

/** `kop init`: scaffolds a new operator project in the current folder. */
export function register(program: Command, makeContext: MakeContext): void {
  const init = program.command('init').description('scaffold a new TypeScript operator project in the current folder');
  addFlags(init, INIT_FLAGS)
    // The flags' camel-cased names are InitOptions' fields, and an absent flag means the default.
    .action(async (flags: InitOptions) => {
      const { runInit } = await import('../init/index.js');
      await runInit(flags, makeContext());
    });
}
