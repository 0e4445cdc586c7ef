import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { envtestCacheDir, type Environment } from './cache-dir.js';
import { goEnvironment, writeEnvtestModules } from './envtest-modules.js';
import {
  normalizeKubernetesVersion,
  PINNED_ETCD_VERSION,
  PINNED_KUBERNETES_VERSION,
  type ControlPlaneBinary,
} from './versions.js';

/** Options for {@link buildEnvtestBinaries}. */
export interface BuildEnvtestOptions {
  /** Kubernetes release; default the pinned one, built from kop's committed envtest/ modules. */
  kubernetesVersion?: string;
  /** etcd release for a non-pinned Kubernetes version; default the one that release's go.mod uses. */
  etcdVersion?: string;
  /** Where the binaries go; default {@link envtestCacheDir}. */
  binDir?: string;
  /** Rebuild even when working binaries of the right version are present. */
  force?: boolean;
  /** Only report what would be built. */
  dryRun?: boolean;
  env?: Environment;
  /** Progress lines (to stderr in the CLI, so stdout stays eval-able). */
  progress?: (message: string) => void;
}

/** What {@link buildEnvtestBinaries} did. */
export interface BuildEnvtestResult {
  binDir: string;
  kubernetesVersion: string;
  etcdVersion: string;
  built: ControlPlaneBinary[];
  reused: ControlPlaneBinary[];
}

/** Go is not installed or too old to build the control plane. */
export class GoUnavailableError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'GoUnavailableError';
  }
}

/** The folder of kop's committed throwaway modules (envtest/ at the package root, next to src/ and dist/). */
export function committedModulesDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'envtest');
}

/**
 * Builds kube-apiserver, kubectl and etcd with Go into `binDir` (skipping any that is there and
 * reports the right version). The pinned version builds from the committed envtest/ modules,
 * copied to a temp folder first so an installed kop package is never written to; any other
 * version gets modules generated on the fly (`go mod tidy` in a temp folder).
 */
export async function buildEnvtestBinaries(options: BuildEnvtestOptions = {}): Promise<BuildEnvtestResult> {
  const env = options.env ?? process.env;
  const progress = options.progress ?? (() => undefined);
  const kubernetesVersion = normalizeKubernetesVersion(options.kubernetesVersion ?? PINNED_KUBERNETES_VERSION);
  const pinned = kubernetesVersion === PINNED_KUBERNETES_VERSION && !options.etcdVersion;
  const binDir = options.binDir ?? envtestCacheDir(kubernetesVersion, env);
  const knownEtcd = pinned ? PINNED_ETCD_VERSION : options.etcdVersion?.replace(/^v/, '');

  const wanted: Record<ControlPlaneBinary, string | undefined> = {
    'kube-apiserver': `v${kubernetesVersion}`,
    kubectl: `v${kubernetesVersion}`,
    etcd: knownEtcd,
  };
  const reused: ControlPlaneBinary[] = [];
  const missing: ControlPlaneBinary[] = [];
  for (const binary of ['kube-apiserver', 'etcd', 'kubectl'] as const) {
    const version = options.force ? undefined : await binaryVersion(join(binDir, binary), binary);
    if (version && (wanted[binary] === undefined || version === wanted[binary])) reused.push(binary);
    else missing.push(binary);
  }
  if (missing.length === 0) {
    progress(`kube-apiserver, etcd and kubectl v${kubernetesVersion} are already in ${binDir}`);
    return { binDir, kubernetesVersion, etcdVersion: knownEtcd ?? 'unknown', built: [], reused };
  }

  if (options.dryRun) {
    progress(`would build ${missing.join(', ')} v${kubernetesVersion} into ${binDir}`);
    return { binDir, kubernetesVersion, etcdVersion: knownEtcd ?? 'unknown', built: [], reused };
  }
  await assertGoAvailable(pinned);
  mkdirSync(binDir, { recursive: true });
  const workDir = mkdtempSync(join(tmpdir(), 'kop-setup-envtest-'));
  try {
    let modules: { kubernetesDir: string; etcdDir: string; etcdVersion: string };
    if (pinned) {
      cpSync(committedModulesDir(), workDir, { recursive: true });
      // A package installed read-only keeps its modes in the copy; go needs to write go.sum there.
      for (const file of ['kubernetes/go.mod', 'kubernetes/go.sum', 'etcd/go.mod', 'etcd/go.sum']) {
        chmodSync(join(workDir, file), 0o644);
      }
      modules = {
        kubernetesDir: join(workDir, 'kubernetes'),
        etcdDir: join(workDir, 'etcd'),
        etcdVersion: PINNED_ETCD_VERSION,
      };
    } else {
      progress(`generating build modules for Kubernetes v${kubernetesVersion} (go mod tidy)`);
      modules = await writeEnvtestModules(workDir, kubernetesVersion, options.etcdVersion);
    }
    const versionFlags = [
      `-X k8s.io/component-base/version.gitVersion=v${kubernetesVersion}`,
      `-X k8s.io/component-base/version.gitMajor=${kubernetesVersion.split('.')[0]}`,
      `-X k8s.io/component-base/version.gitMinor=${kubernetesVersion.split('.')[1]}`,
    ];
    const targets: Array<{ binary: ControlPlaneBinary; dir: string; pkg: string; ldflags: string }> = [
      {
        binary: 'kube-apiserver',
        dir: modules.kubernetesDir,
        pkg: 'k8s.io/kubernetes/cmd/kube-apiserver',
        ldflags: ['-s -w', ...versionFlags].join(' '),
      },
      { binary: 'etcd', dir: modules.etcdDir, pkg: 'go.etcd.io/etcd/server/v3', ldflags: '-s -w' },
      {
        binary: 'kubectl',
        dir: modules.kubernetesDir,
        pkg: 'k8s.io/kubernetes/cmd/kubectl',
        ldflags: ['-s -w', ...versionFlags].join(' '),
      },
    ];
    for (const target of targets.filter((candidate) => missing.includes(candidate.binary))) {
      const started = Date.now();
      progress(
        `building ${target.binary} (${target.pkg})${target.binary === 'kube-apiserver' ? '; a cold build takes 5 to 20 minutes' : ''}`,
      );
      const output = join(binDir, `.${target.binary}.${process.pid}.tmp`);
      try {
        await execa('go', ['build', '-ldflags', target.ldflags, '-o', output, target.pkg], {
          cwd: target.dir,
          env: goEnvironment(),
          all: true,
        });
      } catch (error) {
        rmSync(output, { force: true });
        const detail = (error as { all?: string }).all ?? (error as Error).message;
        throw new Error(`go build ${target.pkg} failed:\n${detail.split('\n').slice(-30).join('\n')}`, {
          cause: error,
        });
      }
      renameSync(output, join(binDir, target.binary));
      progress(`built ${target.binary} in ${formatSeconds(Date.now() - started)}`);
    }
    return { binDir, kubernetesVersion, etcdVersion: modules.etcdVersion, built: missing, reused };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** The version a binary reports (v1.36.3 for Kubernetes programs, 3.6.16 for etcd), or undefined if it does not run. */
export async function binaryVersion(path: string, binary: ControlPlaneBinary): Promise<string | undefined> {
  if (!existsSync(path)) return undefined;
  try {
    const args = binary === 'kubectl' ? ['version', '--client'] : ['--version'];
    const { stdout } = await execa(path, args, { timeout: 20_000 });
    const match =
      binary === 'etcd'
        ? /etcd Version:\s*(\S+)/.exec(stdout)
        : binary === 'kubectl'
          ? /Client Version:\s*(\S+)/.exec(stdout)
          : /Kubernetes\s+(\S+)/.exec(stdout);
    return match?.[1];
  } catch {
    return undefined;
  }
}

async function assertGoAvailable(pinned: boolean): Promise<void> {
  await assertGoVersion(
    pinned ? requiredGoVersion() : undefined,
    `Kubernetes v${PINNED_KUBERNETES_VERSION}`,
    'set KUBEBUILDER_ASSETS to a folder that already has kube-apiserver, etcd and kubectl',
  );
}

/**
 * Fails with a GoUnavailableError when `go` is missing, or older than `required` (a go.mod `go`
 * line) that building `what` needs; `alternative` says how to do without Go.
 */
export async function assertGoVersion(required: string | undefined, what: string, alternative: string): Promise<void> {
  let goVersion: string;
  try {
    goVersion = (await execa('go', ['env', 'GOVERSION'], { env: goEnvironment() })).stdout.trim();
  } catch (error) {
    const missing = (error as { code?: string }).code === 'ENOENT';
    throw new GoUnavailableError(
      missing
        ? `Go is not installed (no \`go\` on PATH); it is needed to build ${what}`
        : `\`go env GOVERSION\` failed: ${(error as Error).message}`,
      `install Go${required ? ` ${required} or newer` : ''} (https://go.dev/dl/), or ${alternative}`,
    );
  }
  if (required && compareGoVersions(goVersion.replace(/^go/, ''), required) < 0) {
    throw new GoUnavailableError(
      `${goVersion} is too old to build ${what}: its modules need go ${required}`,
      `install Go ${required} or newer (https://go.dev/dl/); kop builds with GOTOOLCHAIN=local so Go never downloads a toolchain by itself`,
    );
  }
}

/** The `go` line of the committed kubernetes build module. */
function requiredGoVersion(): string | undefined {
  try {
    return /^go (\S+)$/m.exec(readFileSync(join(committedModulesDir(), 'kubernetes', 'go.mod'), 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** Orders Go versions such as 1.26.0 and 1.26rc1 (pre-releases count as their release). */
export function compareGoVersions(a: string, b: string): number {
  const parse = (version: string) => version.split(/[.a-z]/).map((part) => Number(part) || 0);
  const [left, right] = [parse(a), parse(b)];
  for (let index = 0; index < 3; index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

function formatSeconds(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`;
}
