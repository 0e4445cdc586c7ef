import type { Command } from 'commander';
import type { UpdatePackOptions } from '../init/index.js';
import type { MakeContext } from './command-module.js';

/** `kop update-pack`: packs the running kop into the project and points the project's dependency at it. */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('update-pack')
    .description(
      "pack this kop into the project (.kop/kop-<version>.tgz) and make the project's kop dependency that file",
    )
    .option(
      '--skip-install',
      'do not run npm install afterwards (package-lock.json keeps the old tarball until you do)',
    )
    .addHelpText(
      'after',
      '\nRun it with the kop you want the project to use, e.g.\n  node <path-to-kop>/bin/kop.js update-pack\n  npx -p ./kop-<version>.tgz kop update-pack\n',
    )
    .action(async (flags: UpdatePackOptions) => {
      const { runUpdatePack } = await import('../init/index.js');
      await runUpdatePack(flags, makeContext());
    });
}
