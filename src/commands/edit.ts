import type { Command } from 'commander';
import type { MakeContext } from './command-module.js';

/** `kop edit --plugins helm`: adds a plugin's files to the project (Kubebuilder's `kubebuilder edit --plugins`). */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('edit')
    .description('add a plugin to the project; --plugins helm writes (or refreshes) a Helm chart in dist/chart')
    .requiredOption('--plugins <names>', 'plugins to add, comma-separated: helm')
    .option('--force', "helm: replace values.yaml with kop's instead of merging your changes into it")
    .action(async (flags: { plugins: string; force?: boolean }) => {
      const { runEdit } = await import('../helm/run-helm.js');
      await runEdit({ plugins: [flags.plugins], force: flags.force }, makeContext());
    });
}
