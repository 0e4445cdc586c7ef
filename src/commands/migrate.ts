import type { Command } from 'commander';
import type { MigrateStorageOptions } from '../migrate/index.js';
import type { MakeContext } from './command-module.js';

/** `kop migrate storage`: every object of the project's CRDs rewritten at the storage version, old versions pruned. */
export function register(program: Command, makeContext: MakeContext): void {
  const migrate = program
    .command('migrate')
    .description('migrate what a cluster holds: `kop migrate storage` rewrites objects at the storage version');
  migrate
    .command('storage')
    .description(
      "rewrite every object at its CRD's storage version, then remove the other versions from status.storedVersions " +
        '(so a later `kop install` may drop them); resumes where a stopped run left off; --dry-run only counts',
    )
    .argument('[crds...]', 'CRD names, e.g. widgets.example.com (default: every CRD config/crd builds)')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: its current context)')
    .option('--page-size <n>', 'objects listed per page; progress is saved on the CRD after each (default 500)')
    .option('--concurrency <n>', 'objects rewritten at once (default 1; a large cluster may gain from a few)')
    .option('--restart', 'forget the progress an earlier run saved and walk every object again')
    .action(async (crds: string[], flags: Omit<MigrateStorageOptions, 'crds'>) => {
      const { runMigrateStorage } = await import('../migrate/index.js');
      await runMigrateStorage({ ...flags, crds }, makeContext());
    });
}
