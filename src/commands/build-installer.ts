import type { Command } from 'commander';
import type { BuildInstallerOptions } from '../deploy/index.js';
import type { MakeContext } from './command-module.js';

/** `kop build-installer`: one YAML file that installs the operator (Kubebuilder's `make build-installer`). */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('build-installer')
    .description('write config/default, built and with the manager image set, to one file: dist/install.yaml')
    .option('--image <image>', "the manager's image (default: $IMG)")
    .option('--output <file>', 'where to write it, inside the project', 'dist/install.yaml')
    .action(async (flags: BuildInstallerOptions) => {
      const { runBuildInstaller } = await import('../deploy/index.js');
      await runBuildInstaller(flags, makeContext());
    });
}
