import type { Command } from 'commander';
import type { AlphaGenerateOptions, AlphaUpdateOptions } from '../alpha/index.js';
import type { MakeContext } from './command-module.js';
import { generators } from './generate.js';

type UpdateFlags = Omit<AlphaUpdateOptions, 'generators'>;
type GenerateFlags = Omit<AlphaGenerateOptions, 'generators'> & { generate?: boolean };

function updateCommand(command: Command, makeContext: MakeContext): Command {
  return command
    .option(
      '--from-version <version>',
      "the kop version that scaffolded the project (default: PROJECT's cliVersion); its tarball .kop/kop-<version>.tgz or node_modules/kop is run",
    )
    .option('--from <tarball-or-folder>', 'that kop itself: a kop-<version>.tgz from npm pack, or a kop package folder')
    .option(
      '--skip-install',
      'do not install node_modules afterwards (package-lock.json is still written anew from the merged package.json)',
    )
    .action(async (flags: UpdateFlags) => {
      const { runAlphaUpdate } = await import('../alpha/index.js');
      await runAlphaUpdate({ ...flags, generators }, makeContext());
    });
}

/**
 * `kop alpha generate` and `kop alpha update` (Kubebuilder's alpha commands), and `kop upgrade`,
 * the short name of `kop alpha update`.
 */
export function register(program: Command, makeContext: MakeContext): void {
  const alpha = program
    .command('alpha')
    .description(
      "alpha commands: `kop alpha generate` (re-scaffold from PROJECT), `kop alpha update` (three-way merge onto this kop's scaffold)",
    );
  alpha
    .command('generate')
    .description(
      're-scaffold the project from its PROJECT with this kop (init, create api, create webhook, plugins, generate)',
    )
    .option('--input-dir <dir>', 'the project whose PROJECT is replayed (default: the current folder)')
    .option(
      '--output-dir <dir>',
      'an empty or new folder for the re-scaffolded project (default: the input folder, in place, after a backup of the files it replaces)',
    )
    .option(
      '--kop-source <spec>',
      'kop dependency of the re-scaffolded project, as for kop init (default: the recorded one, or this kop packed into .kop/)',
    )
    .option('--no-generate', 'do not run kop generate at the end')
    .action(async (flags: GenerateFlags) => {
      const { runAlphaGenerate } = await import('../alpha/index.js');
      const { generate, ...options } = flags;
      await runAlphaGenerate({ ...options, generators: generate === false ? undefined : generators }, makeContext());
    });
  updateCommand(
    alpha
      .command('update')
      .description(
        "move the project to this kop's scaffold keeping your edits: a three-way merge per file with the scaffold of the kop that made it (PROJECT's cliVersion)",
      ),
    makeContext,
  );
  updateCommand(program.command('upgrade').description('the same as `kop alpha update`'), makeContext);
}
