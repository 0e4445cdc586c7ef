import type { Command } from 'commander';
import type { InstallOptions } from '../deploy/index.js';
import type { MakeContext } from './command-module.js';

/** `kop install`: the CRDs into the current cluster (Kubebuilder's `make install`). */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('install')
    .description(
      'apply the CRDs (config/crd) to the current cluster with server-side apply; --dry-run asks the server only',
    )
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: its current context)')
    .option('--force-conflicts', 'take fields another field manager owns')
    .action(async (flags: InstallOptions) => {
      const { runInstall } = await import('../deploy/index.js');
      await runInstall(flags, makeContext());
    });
}
