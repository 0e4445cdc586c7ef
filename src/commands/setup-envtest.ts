import type { Command } from 'commander';
import type { Context } from '../base/context.js';
import { KopError, UsageError } from '../base/errors.js';
import type { MakeContext } from './command-module.js';

/** Options of `kop setup-envtest`, as {@link runSetupEnvtest} takes them. */
export interface SetupEnvtestOptions {
  /** Kubernetes release such as 1.36.3; default the version kop pins. */
  kubernetesVersion?: string;
  /** etcd release for a non-pinned Kubernetes version. */
  etcdVersion?: string;
  /** Output folder; default `$KOP_ENVTEST_DIR` or `${XDG_CACHE_HOME:-$HOME/.cache}/kop/envtest/<version>`. */
  binDir?: string;
  /** `env` prints `export KUBEBUILDER_ASSETS=<dir>`; `path` prints only the folder. */
  print: 'env' | 'path';
  force: boolean;
  /** Also build helm (kop's own tests of the Helm chart need it), into the same folder. */
  helm?: boolean;
  /** Where progress lines go; default stderr, so stdout stays eval-able. */
  progress?: (message: string) => void;
}

/** `kop setup-envtest`: builds (or finds cached) kube-apiserver, etcd and kubectl for kop/testing. */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('setup-envtest')
    .description('build kube-apiserver, etcd and kubectl for tests (needs Go; cached per version) and print KUBEBUILDER_ASSETS')
    .option('--kubernetes-version <version>', 'Kubernetes release to build (default: the version kop pins)')
    .option('--etcd-version <version>', 'etcd release (default: pinned, or the one that Kubernetes release uses)')
    .option('--bin-dir <dir>', 'where to put the binaries (default: $KOP_ENVTEST_DIR or ~/.cache/kop/envtest/<version>)')
    .option('--print <what>', 'what to print on stdout: env (an eval-able export line) or path', 'env')
    .option('--force', 'rebuild even when the binaries are present')
    .option('--helm', "also build helm into the same folder (kop's own tests of `kop edit --plugins helm` run it)")
    .addHelpText('after', '\nExample:\n  eval "$(npx kop setup-envtest)"   # sets KUBEBUILDER_ASSETS for this shell\n')
    .action(async (flags: SetupEnvtestFlags) => {
      if (flags.print !== 'env' && flags.print !== 'path') {
        throw new UsageError(`--print must be "env" or "path", not "${flags.print}"`);
      }
      await runSetupEnvtest(
        {
          kubernetesVersion: flags.kubernetesVersion,
          etcdVersion: flags.etcdVersion,
          binDir: flags.binDir,
          print: flags.print,
          force: flags.force ?? false,
          helm: flags.helm ?? false,
        },
        makeContext(),
      );
    });
}

interface SetupEnvtestFlags {
  kubernetesVersion?: string;
  etcdVersion?: string;
  binDir?: string;
  print: string;
  force?: boolean;
  helm?: boolean;
}

/**
 * Builds or reuses the binaries, reporting progress on stderr so that stdout (`out.info`)
 * holds only the line to eval (or the bare folder with `print: 'path'`). Returns the folder.
 */
export async function runSetupEnvtest(options: SetupEnvtestOptions, context: Context): Promise<string> {
  const { buildEnvtestBinaries, GoUnavailableError } = await import('../testing/build-envtest.js');
  const { normalizeKubernetesVersion } = await import('../testing/versions.js');
  const { resolve } = await import('node:path');
  if (options.kubernetesVersion) {
    try {
      normalizeKubernetesVersion(options.kubernetesVersion);
    } catch (error) {
      throw new UsageError(`--kubernetes-version: ${(error as Error).message}`);
    }
  }
  const progress = options.progress ?? ((message: string) => void process.stderr.write(`setup-envtest: ${message}\n`));
  try {
    const result = await buildEnvtestBinaries({
      kubernetesVersion: options.kubernetesVersion,
      etcdVersion: options.etcdVersion,
      binDir: options.binDir ? resolve(context.cwd, options.binDir) : undefined,
      force: options.force,
      dryRun: context.dryRun,
      env: context.env,
      progress,
    });
    if (options.helm) {
      const { buildHelm } = await import('../testing/build-helm.js');
      await buildHelm({ binDir: result.binDir, force: options.force, dryRun: context.dryRun, env: context.env, progress });
    }
    context.out.info(options.print === 'path' ? result.binDir : `export KUBEBUILDER_ASSETS=${shellQuote(result.binDir)}`);
    return result.binDir;
  } catch (error) {
    if (error instanceof GoUnavailableError) throw new KopError(error.message, error.hint);
    throw error;
  }
}

/** Leaves plain paths alone and single-quotes anything a shell would otherwise split or expand. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
