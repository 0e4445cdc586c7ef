import type { Command } from 'commander';
import type { ImportCrdOptions } from '../import/index.js';
import type { MakeContext } from './command-module.js';
import { generators } from './generate.js';

/** The flags are ImportCrdOptions' fields, plus `--no-generate`. */
type ImportCrdFlags = Omit<ImportCrdOptions, 'sources'> & { generate?: boolean };

/**
 * `kop import crd`: existing CRDs become the project's API types (external by default, owned
 * with --own), then `kop generate` writes their typed clients (and, when owned, their CRDs).
 */
export function register(program: Command, makeContext: MakeContext): void {
  const importCommand = program.command('import').description('bring existing APIs into the project: `kop import crd`');
  importCommand
    .command('crd')
    .description(
      'turn CRDs (files, folders, - for stdin, or --from-cluster) into API types with markers, a typed client and a PROJECT entry',
    )
    .argument('[sources...]', 'CRD files or folders of them (YAML or JSON), or - for standard input')
    .option(
      '--from-cluster <names...>',
      'read these CRDs (e.g. certificates.cert-manager.io) from the cluster of the kubeconfig',
    )
    .option('--kubeconfig <path>', 'kubeconfig for --from-cluster (default: KUBECONFIG, in-cluster, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context for --from-cluster')
    .option(
      '--own',
      'the project takes the CRD over: `kop generate` writes it from the types from then on (default: external, types and client only)',
    )
    .option(
      '--raw-schema',
      'keep subtrees no marker expresses (oneOf, allOf, not...) verbatim with +kop:schema instead of stopping',
    )
    .option('--force', 'import a kind/version the project already has again, overwriting its types')
    .option('--no-generate', 'do not run `kop generate` afterwards')
    .action(async (sources: string[], flags: ImportCrdFlags) => {
      const context = makeContext();
      const { runImportCrd } = await import('../import/index.js');
      const options: ImportCrdOptions = { sources, ...flags };
      const result = await runImportCrd(options, context);
      if (!result.written || flags.generate === false) return;
      // The typed clients (and an owned kind's CRD) come from `kop generate`, as for any API type.
      const { runGenerate } = await import('../generate/index.js');
      await runGenerate({ check: false, generators }, context);
    });
}
