import type { Command } from 'commander';
import type { DeployOptions } from '../deploy/index.js';
import type { MakeContext } from './command-module.js';

/** `kop deploy`: the whole operator into the current cluster (Kubebuilder's `make deploy IMG=...`). */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('deploy')
    .description('build config/default, set the manager image, and server-side apply it to the current cluster')
    .option('--image <image>', "the manager's image, e.g. registry.example.com/team/operator:v0.1.0 (default: $IMG)")
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: its current context)')
    .option('--force-conflicts', 'take fields another field manager owns')
    .addHelpText(
      'after',
      '\nExamples:\n  npx kop deploy --image registry.example.com/team/operator:v0.1.0\n  IMG=registry.example.com/team/operator:v0.1.0 npm run deploy\n',
    )
    .action(async (flags: DeployOptions) => {
      const { runDeploy } = await import('../deploy/index.js');
      await runDeploy(flags, makeContext());
    });
}
