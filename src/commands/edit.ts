import type { Command } from 'commander';
import type { EditOptions } from '../plugins/run-edit.js';
import type { MakeContext } from './command-module.js';

/** `kop edit --plugins <names>`: adds plugins' files to the project (Kubebuilder's `kubebuilder edit --plugins`). */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('edit')
    .description('add plugins to the project and record them in PROJECT: helm (a Helm chart in dist/chart), grafana.kubebuilder.io/v1-alpha (dashboards in grafana/)')
    .requiredOption(
      '--plugins <names>',
      'plugins to add, comma-separated: helm (or helm/v1-alpha, helm.kubebuilder.io/v1-alpha, helm/v2-alpha, helm.kubebuilder.io/v2-alpha), grafana.kubebuilder.io/v1-alpha (or grafana/v1-alpha)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--force', "helm: replace values.yaml with kop's instead of merging your changes into it")
    .action(async (flags: EditOptions) => {
      const { runEdit } = await import('../plugins/run-edit.js');
      await runEdit({ plugins: flags.plugins, force: flags.force }, makeContext());
    });
}
