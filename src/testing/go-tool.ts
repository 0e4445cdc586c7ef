import {
  accessSync,
  chmodSync,
  constants,
  cpSync,
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

/** Options of the builders of the test tools kop builds from Go modules (helm, otelcol). */
export interface BuildGoToolOptions {
  /** Default: the envtest cache folder of the pinned Kubernetes version, beside kube-apiserver. */
  binDir?: string;
  force?: boolean;
  dryRun?: boolean;
  env?: Environment;
  progress?: (message: string) => void;
}

/** A test tool built from one of kop's committed modules under envtest/. */
export interface GoTool {
  /** The binary's name, and the folder of its module under envtest/. */
  name: string;
  /** The release as the tool reports it and messages show it (`v4.3.1`, `0.161.0`). */
  release: string;
  /** What is built, for the progress line. */
  what: string;
  /** How long a cold build takes, for the progress line. */
  coldBuild: string;
  /** The way round a missing Go, for its error. */
  instead: string;
  /** `go build` arguments that write the binary to `output`. */
  buildArgs(output: string): string[];
  /** The release the binary at `path` reports, or undefined when it is missing or does not run. */
  installedRelease(path: string): Promise<string | undefined>;
}

/**
 * Builds `tool` from its committed module (go.sum included) into the envtest cache folder, as
 * kube-apiserver and kubectl are built: Go and the module proxy, no downloaded binary. Skips the
 * build when the binary there reports the pinned release. The binary is written beside its target
 * and renamed into place, so a killed build leaves no half-written tool.
 */
export async function buildGoTool(
  tool: GoTool,
  options: BuildGoToolOptions = {},
): Promise<{ path: string; built: boolean }> {
  const env = options.env ?? process.env;
  const progress = options.progress ?? (() => undefined);
  const binDir = options.binDir ?? envtestCacheDir(PINNED_KUBERNETES_VERSION, env);
  const target = join(binDir, tool.name);
  if (!options.force && (await tool.installedRelease(target)) === tool.release) {
    progress(`${tool.name} ${tool.release} is already in ${binDir}`);
    return { path: target, built: false };
  }
  if (options.dryRun) {
    progress(`would build ${tool.name} ${tool.release} into ${binDir}`);
    return { path: target, built: false };
  }
  const modules = join(committedModulesDir(), tool.name);
  const goLine = /^go (\S+)$/m.exec(readFileSync(join(modules, 'go.mod'), 'utf8'))?.[1];
  await assertGoVersion(goLine, `${tool.name} ${tool.release}`, tool.instead);
  mkdirSync(binDir, { recursive: true });
  const workDir = mkdtempSync(join(tmpdir(), `kop-build-${tool.name}-`));
  const output = join(binDir, `.${tool.name}.${process.pid}.tmp`);
  try {
    cpSync(modules, workDir, { recursive: true });
    for (const file of ['go.mod', 'go.sum']) chmodSync(join(workDir, file), 0o644);
    const started = Date.now();
    progress(`building ${tool.name} ${tool.release} (${tool.what}); a cold build takes ${tool.coldBuild}`);
    try {
      await execa('go', tool.buildArgs(output), { cwd: workDir, env: goEnvironment(), all: true });
    } catch (error) {
      rmSync(output, { force: true });
      const detail = (error as { all?: string }).all ?? (error as Error).message;
      throw new Error(`go build of ${tool.name} failed:\n${detail.split('\n').slice(-30).join('\n')}`, {
        cause: error,
      });
    }
    renameSync(output, target);
    progress(`built ${tool.name} in ${Math.round((Date.now() - started) / 1000)}s`);
    return { path: target, built: true };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * Finds a test tool: `$<envVar>` (authoritative when set), else beside the control-plane binaries
 * (`$KUBEBUILDER_ASSETS`, then the envtest cache folder `kop setup-envtest` fills). `notFound`
 * makes the error from the places looked at.
 */
export function findGoTool(
  name: string,
  envVar: string,
  env: Environment,
  notFound: (searched: readonly string[]) => Error,
): string {
  const named = env[envVar];
  const candidates = named
    ? [named]
    : [
        ...(env.KUBEBUILDER_ASSETS ? [join(env.KUBEBUILDER_ASSETS, name)] : []),
        join(envtestCacheDir(PINNED_KUBERNETES_VERSION, env), name),
      ];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // try the next place
    }
  }
  throw notFound(named ? [`${named} (from $${envVar})`] : candidates);
}
