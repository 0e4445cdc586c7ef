import type { Command } from 'commander';
import type { DeleteOptions } from '../deploy/index.js';
import type { MakeContext } from './command-module.js';

/** `kop undeploy`: removes what `kop deploy` applied (Kubebuilder's `make undeploy`). */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('undeploy')
    .description('delete what config/default builds (CRDs and namespace included) from the current cluster')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: its current context)')
    .option('--ignore-not-found', 'do not fail when some objects are already gone')
    .action(async (flags: DeleteOptions) => {
      const { runUndeploy } = await import('../deploy/index.js');
      await runUndeploy(flags, makeContext());
    });
}
