import type { Command } from 'commander';
import type { DeleteOptions } from '../deploy/index.js';
import type { MakeContext } from './command-module.js';

/** `kop uninstall`: the CRDs out of the current cluster (Kubebuilder's `make uninstall`). */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('uninstall')
    .description('delete the CRDs (config/crd), and with them every object of their kinds, from the current cluster')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: its current context)')
    .option('--ignore-not-found', 'do not fail when some are already gone')
    .action(async (flags: DeleteOptions) => {
      const { runUninstall } = await import('../deploy/index.js');
      await runUninstall(flags, makeContext());
    });
}
