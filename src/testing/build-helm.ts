import {
  accessSync,
  chmodSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { assertGoVersion, committedModulesDir } from './build-envtest.js';
import { envtestCacheDir, type Environment } from './cache-dir.js';
import { goEnvironment } from './envtest-modules.js';
import { PINNED_KUBERNETES_VERSION } from './versions.js';

/** The Helm release kop's chart tests run (envtest/helm). */
export const PINNED_HELM_VERSION = '4.3.1';

/** Options of {@link buildHelm}. */
export interface BuildHelmOptions {
  /** Default: the envtest cache folder of the pinned Kubernetes version, beside kube-apiserver. */
  binDir?: string;
  force?: boolean;
  dryRun?: boolean;
  env?: Environment;
  progress?: (message: string) => void;
}

/**
 * Builds helm from kop's committed module envtest/helm (helm.sh/helm/v4 at the pinned release, go.sum
 * included) into the envtest cache folder, as kube-apiserver and kubectl are built: Go and the module
 * proxy, no downloaded binary. Skips the build when a helm of the pinned version is there. Returns its path.
 */
export async function buildHelm(options: BuildHelmOptions = {}): Promise<{ path: string; built: boolean }> {
  const env = options.env ?? process.env;
  const progress = options.progress ?? (() => undefined);
  const binDir = options.binDir ?? envtestCacheDir(PINNED_KUBERNETES_VERSION, env);
  const target = join(binDir, 'helm');
  if (!options.force && (await helmVersion(target)) === `v${PINNED_HELM_VERSION}`) {
    progress(`helm v${PINNED_HELM_VERSION} is already in ${binDir}`);
    return { path: target, built: false };
  }
  if (options.dryRun) {
    progress(`would build helm v${PINNED_HELM_VERSION} into ${binDir}`);
    return { path: target, built: false };
  }
  const modules = join(committedModulesDir(), 'helm');
  const goLine = /^go (\S+)$/m.exec(readFileSync(join(modules, 'go.mod'), 'utf8'))?.[1];
  await assertGoVersion(goLine, `helm v${PINNED_HELM_VERSION}`, 'set KOP_HELM to a helm binary');
  mkdirSync(binDir, { recursive: true });
  const workDir = mkdtempSync(join(tmpdir(), 'kop-build-helm-'));
  const output = join(binDir, `.helm.${process.pid}.tmp`);
  try {
    cpSync(modules, workDir, { recursive: true });
    for (const file of ['go.mod', 'go.sum']) chmodSync(join(workDir, file), 0o644);
    const started = Date.now();
    progress(`building helm v${PINNED_HELM_VERSION} (helm.sh/helm/v4/cmd/helm); a cold build takes 3 to 10 minutes`);
    try {
      await execa(
        'go',
        [
          'build',
          '-ldflags',
          `-s -w -X helm.sh/helm/v4/internal/version.version=v${PINNED_HELM_VERSION}`,
          '-o',
          output,
          'helm.sh/helm/v4/cmd/helm',
        ],
        {
          cwd: workDir,
          env: goEnvironment(),
          all: true,
        },
      );
    } catch (error) {
      rmSync(output, { force: true });
      const detail = (error as { all?: string }).all ?? (error as Error).message;
      throw new Error(`go build helm.sh/helm/v4/cmd/helm failed:\n${detail.split('\n').slice(-30).join('\n')}`, {
        cause: error,
      });
    }
    renameSync(output, target);
    progress(`built helm in ${Math.round((Date.now() - started) / 1000)}s`);
    return { path: target, built: true };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** The version helm reports (`v4.3.1`), or undefined when it is missing or does not run. */
export async function helmVersion(path: string): Promise<string | undefined> {
  if (!existsSync(path)) return undefined;
  try {
    const { stdout } = await execa(path, ['version', '--template', '{{.Version}}'], {
      timeout: 20_000,
      env: { HELM_CACHE_HOME: tmpdir() },
    });
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** helm was not found: the message says where kop looked and how to build it. */
export class HelmNotFoundError extends Error {
  constructor(readonly searched: readonly string[]) {
    super(
      `helm not found (looked at: ${searched.join(', ')}). Build it with \`node bin/kop.js setup-envtest --helm\` (needs Go), or set KOP_HELM to a helm binary.`,
    );
    this.name = 'HelmNotFoundError';
  }
}

/**
 * Finds helm for tests: `$KOP_HELM` (authoritative when set), else beside the control-plane binaries
 * (`$KUBEBUILDER_ASSETS`, then the envtest cache folder `kop setup-envtest --helm` fills).
 */
export function findHelm(env: Environment = process.env): string {
  const named = env.KOP_HELM;
  const candidates = named
    ? [named]
    : [
        ...(env.KUBEBUILDER_ASSETS ? [join(env.KUBEBUILDER_ASSETS, 'helm')] : []),
        join(envtestCacheDir(PINNED_KUBERNETES_VERSION, env), 'helm'),
      ];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // try the next place
    }
  }
  throw new HelmNotFoundError(named ? [`${named} (from $KOP_HELM)`] : candidates);
}
