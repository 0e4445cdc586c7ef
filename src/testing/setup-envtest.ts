import { join } from 'node:path';
import {
  binaryVersion,
  buildEnvtestBinaries,
  GoUnavailableError,
  type BuildEnvtestOptions,
  type BuildEnvtestResult,
} from './build-envtest.js';
import { envtestCacheDir } from './cache-dir.js';
import {
  currentEnvtestPlatform,
  downloadEnvtestBinaries,
  envtestArchiveName,
  envtestDownloadSource,
  type EnvtestPlatform,
} from './download-envtest.js';
import { normalizeKubernetesVersion, PINNED_KUBERNETES_VERSION } from './versions.js';

/** Where {@link setupEnvtest} got the binaries from. */
export type EnvtestSource = 'kubebuilder-assets' | 'cache' | 'download' | 'build';

/** Options for {@link setupEnvtest}: those of the Go build, plus where to download from. */
export interface SetupEnvtestOptions extends BuildEnvtestOptions {
  /** Try controller-tools' prebuilt archive before building (default true). */
  download?: boolean;
  /** Default `$KOP_ENVTEST_INDEX_URL`, else controller-tools' envtest-releases.yaml. */
  indexUrl?: string;
  /** Default `$KOP_ENVTEST_ARCHIVE_BASE_URL`, else the index's selfLinks. */
  archiveBaseUrl?: string;
  /** Default this machine's. */
  platform?: EnvtestPlatform;
  /** Abort a download when no byte arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
  /** The Go build; default {@link buildEnvtestBinaries} (tests pass a fake). */
  build?: (options: BuildEnvtestOptions) => Promise<BuildEnvtestResult>;
}

/** What {@link setupEnvtest} did. */
export interface SetupEnvtestResult {
  /** The folder holding kube-apiserver, etcd and kubectl. */
  binDir: string;
  kubernetesVersion: string;
  source: EnvtestSource;
  /** Why this source, in a sentence (for a fallback build, why the download failed). */
  reason: string;
}

/**
 * Gets kube-apiserver, etcd and kubectl of one Kubernetes version, cheapest first:
 * `$KUBEBUILDER_ASSETS` when it holds that version; the cache folder when it does; the prebuilt,
 * checksummed archive of controller-tools' envtest index; and only when that fails (offline, an
 * unlisted version or platform, a bad archive) a Go build from kop's modules. Each step says on
 * `progress` what it found and why it moves on.
 */
export async function setupEnvtest(options: SetupEnvtestOptions = {}): Promise<SetupEnvtestResult> {
  const env = options.env ?? process.env;
  const progress = options.progress ?? (() => undefined);
  const kubernetesVersion = normalizeKubernetesVersion(options.kubernetesVersion ?? PINNED_KUBERNETES_VERSION);
  const etcdVersion = options.etcdVersion?.replace(/^v/, '');
  const binDir = options.binDir ?? envtestCacheDir(kubernetesVersion, env);

  if (!options.force && !options.binDir && env.KUBEBUILDER_ASSETS) {
    const problem = await envtestBinariesProblem(env.KUBEBUILDER_ASSETS, kubernetesVersion, etcdVersion);
    if (!problem) {
      progress(
        `using $KUBEBUILDER_ASSETS (${env.KUBEBUILDER_ASSETS}): it has kube-apiserver, etcd and kubectl v${kubernetesVersion}`,
      );
      return {
        binDir: env.KUBEBUILDER_ASSETS,
        kubernetesVersion,
        source: 'kubebuilder-assets',
        reason: '$KUBEBUILDER_ASSETS has them',
      };
    }
    progress(`not using $KUBEBUILDER_ASSETS (${env.KUBEBUILDER_ASSETS}): ${problem}`);
  }
  if (!options.force) {
    const problem = await envtestBinariesProblem(binDir, kubernetesVersion, etcdVersion);
    if (!problem) {
      progress(`kube-apiserver, etcd and kubectl v${kubernetesVersion} are already in ${binDir}`);
      return { binDir, kubernetesVersion, source: 'cache', reason: 'already there' };
    }
  }

  const build = options.build ?? buildEnvtestBinaries;
  const buildOptions: BuildEnvtestOptions = { ...options, kubernetesVersion, binDir };
  const platform = options.platform ?? currentEnvtestPlatform();
  const skipDownload =
    options.download === false
      ? 'downloading is turned off (--no-download)'
      : etcdVersion
        ? `the envtest archives bring their own etcd, and etcd ${etcdVersion} was asked for`
        : !platform
          ? `controller-tools publishes no envtest archive kop/testing can use on ${process.platform}/${process.arch}`
          : undefined;
  if (skipDownload || !platform) {
    const reason = skipDownload ?? 'no platform';
    if (!options.dryRun) progress(`building from Go modules: ${reason}`);
    await build(buildOptions);
    return { binDir, kubernetesVersion, source: 'build', reason };
  }

  const source = envtestDownloadSource(env, { indexUrl: options.indexUrl, archiveBaseUrl: options.archiveBaseUrl });
  const archiveName = envtestArchiveName(kubernetesVersion, platform);
  if (options.dryRun) {
    progress(
      `would download ${archiveName} (listed in ${source.indexUrl}) into ${binDir}, and build from Go modules only if that fails`,
    );
    return { binDir, kubernetesVersion, source: 'download', reason: 'dry run' };
  }

  const started = Date.now();
  let downloadFailure: string;
  try {
    const result = await downloadEnvtestBinaries({
      ...source,
      kubernetesVersion,
      binDir,
      platform,
      idleTimeoutMs: options.idleTimeoutMs,
      progress,
      verify: async (staged) => {
        const problem = await envtestBinariesProblem(staged, kubernetesVersion, undefined);
        if (problem) throw new Error(`the binaries of ${archiveName} are not what the index says: ${problem}`);
      },
    });
    const megabytes = (result.archiveBytes / 1024 / 1024).toFixed(1);
    progress(
      `downloaded ${archiveName} (${megabytes} MB, sha512 as the index lists) into ${binDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return { binDir, kubernetesVersion, source: 'download', reason: `downloaded ${result.archiveUrl}` };
  } catch (error) {
    downloadFailure = (error as Error).message;
  }
  progress(`could not download the prebuilt binaries: ${downloadFailure}`);
  progress('building them from Go modules instead');
  try {
    await build(buildOptions);
  } catch (error) {
    if (error instanceof GoUnavailableError) {
      throw new GoUnavailableError(
        `could not download the prebuilt binaries (${downloadFailure}), and cannot build them: ${error.message}`,
        `${error.hint}; or download from a reachable copy of the envtest index (--index-url, KOP_ENVTEST_INDEX_URL)`,
      );
    }
    throw error;
  }
  return { binDir, kubernetesVersion, source: 'build', reason: `the download failed: ${downloadFailure}` };
}

/**
 * Why `dir` cannot serve as the binaries of `kubernetesVersion`, or undefined when it can:
 * kube-apiserver and kubectl must report that version, etcd must run (and report `etcdVersion`
 * when one is asked for; the envtest archives choose their own).
 */
export async function envtestBinariesProblem(
  dir: string,
  kubernetesVersion: string,
  etcdVersion: string | undefined,
): Promise<string | undefined> {
  const [apiServer, kubectl, etcd] = await Promise.all([
    binaryVersion(join(dir, 'kube-apiserver'), 'kube-apiserver'),
    binaryVersion(join(dir, 'kubectl'), 'kubectl'),
    binaryVersion(join(dir, 'etcd'), 'etcd'),
  ]);
  const problems: string[] = [];
  const want = `v${kubernetesVersion}`;
  for (const [binary, version] of [
    ['kube-apiserver', apiServer],
    ['kubectl', kubectl],
  ] as const) {
    if (version === undefined) problems.push(`no working ${binary}`);
    else if (version !== want) problems.push(`${binary} is ${version}, not ${want}`);
  }
  if (etcd === undefined) problems.push('no working etcd');
  else if (etcdVersion && etcd !== etcdVersion) problems.push(`etcd is ${etcd}, not ${etcdVersion}`);
  return problems.length > 0 ? problems.join(', ') : undefined;
}
