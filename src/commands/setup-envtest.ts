import type { Command } from 'commander';
import { type Context, KopError, UsageError } from '../base/index.js';
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
  /** Also build the OpenTelemetry Collector (kop's own tracing tests export to it), into the same folder. */
  otelcol?: boolean;
  /** Try the prebuilt archive before building (default true). */
  download?: boolean;
  /** The envtest archive index; default `$KOP_ENVTEST_INDEX_URL`, else controller-tools' envtest-releases.yaml. */
  indexUrl?: string;
  /** Fetch archives from `<url>/<archive name>` instead of the index's links; default `$KOP_ENVTEST_ARCHIVE_BASE_URL`. */
  archiveBaseUrl?: string;
  /** Where progress lines go; default stderr, so stdout stays eval-able. */
  progress?: (message: string) => void;
}

/** `kop setup-envtest`: finds, downloads or (failing that) builds kube-apiserver, etcd and kubectl for kop/testing. */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('setup-envtest')
    .description(
      'get kube-apiserver, etcd and kubectl for tests (downloaded prebuilt and checksummed, or built with Go when that fails; cached per version) and print KUBEBUILDER_ASSETS',
    )
    .option('--kubernetes-version <version>', 'Kubernetes release (default: the version kop pins)')
    .option('--etcd-version <version>', 'etcd release (default: pinned, or the one that Kubernetes release uses)')
    .option(
      '--bin-dir <dir>',
      'where to put the binaries (default: $KOP_ENVTEST_DIR or ~/.cache/kop/envtest/<version>)',
    )
    .option('--print <what>', 'what to print on stdout: env (an eval-able export line) or path', 'env')
    .option('--helm', "also build helm into the same folder (kop's own tests of `kop edit --plugins helm` run it)")
    .option(
      '--otelcol',
      "also build a minimal OpenTelemetry Collector (otelcol) into the same folder (kop's own tracing tests export to it)",
    )
    .option('--force', 'download (or build) again even when the binaries are present')
    .option(
      '--index-url <url>',
      "envtest archive index (default: $KOP_ENVTEST_INDEX_URL, else controller-tools' envtest-releases.yaml)",
    )
    .option(
      '--archive-base-url <url>',
      "fetch archives from <url>/<archive name>, e.g. a mirror (default: $KOP_ENVTEST_ARCHIVE_BASE_URL, else the index's links)",
    )
    .option('--no-download', 'skip the prebuilt download and build with Go')
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
          otelcol: flags.otelcol ?? false,
          download: flags.download,
          indexUrl: flags.indexUrl,
          archiveBaseUrl: flags.archiveBaseUrl,
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
  otelcol?: boolean;
  download: boolean;
  indexUrl?: string;
  archiveBaseUrl?: string;
}

/**
 * Reuses, downloads or builds the binaries (see setupEnvtest in kop/testing's sources), reporting
 * on stderr which path it took and why, so that stdout (`out.info`) holds only the line to eval
 * (or the bare folder with `print: 'path'`). Returns the folder.
 */
export async function runSetupEnvtest(options: SetupEnvtestOptions, context: Context): Promise<string> {
  const { GoUnavailableError } = await import('../testing/internal.js');
  const { setupEnvtest } = await import('../testing/internal.js');
  const { normalizeKubernetesVersion } = await import('../testing/internal.js');
  const { resolve } = await import('node:path'); // eslint-disable-line @typescript-eslint/unbound-method -- node:path's functions use no `this`
  if (options.kubernetesVersion) {
    try {
      normalizeKubernetesVersion(options.kubernetesVersion);
    } catch (error) {
      throw new UsageError(`--kubernetes-version: ${(error as Error).message}`);
    }
  }
  const progress = options.progress ?? ((message: string) => void process.stderr.write(`setup-envtest: ${message}\n`));
  for (const [flag, url] of [
    ['--index-url', options.indexUrl],
    ['--archive-base-url', options.archiveBaseUrl],
  ] as const) {
    if (url !== undefined && !/^(https?|file):\/\/./.test(url))
      throw new UsageError(`${flag} must be an https:, http: or file: URL, not "${url}"`);
  }
  try {
    const result = await setupEnvtest({
      kubernetesVersion: options.kubernetesVersion,
      etcdVersion: options.etcdVersion,
      binDir: options.binDir ? resolve(context.cwd, options.binDir) : undefined,
      force: options.force,
      download: options.download,
      indexUrl: options.indexUrl,
      archiveBaseUrl: options.archiveBaseUrl,
      dryRun: context.dryRun,
      env: context.env,
      progress,
    });
    if (options.helm) {
      const { buildHelm } = await import('../testing/internal.js');
      await buildHelm({
        binDir: result.binDir,
        force: options.force,
        dryRun: context.dryRun,
        env: context.env,
        progress,
      });
    }
    if (options.otelcol) {
      const { buildOtelcol } = await import('../testing/internal.js');
      await buildOtelcol({
        binDir: result.binDir,
        force: options.force,
        dryRun: context.dryRun,
        env: context.env,
        progress,
      });
    }
    context.out.info(
      options.print === 'path' ? result.binDir : `export KUBEBUILDER_ASSETS=${shellQuote(result.binDir)}`,
    );
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
