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

/**
 * The OpenTelemetry Collector release kop's tracing tests export to (envtest/otelcol). The file
 * exporter lives in opentelemetry-collector-contrib, whose modules newer than this release do not
 * all resolve through the module proxy yet; the core modules are kept at the same release.
 */
export const PINNED_OTELCOL_VERSION = '0.161.0';

/** Options of {@link buildOtelcol}. */
export interface BuildOtelcolOptions {
  /** Default: the envtest cache folder of the pinned Kubernetes version, beside kube-apiserver. */
  binDir?: string;
  force?: boolean;
  dryRun?: boolean;
  env?: Environment;
  progress?: (message: string) => void;
}

/**
 * Builds a minimal OpenTelemetry Collector, `otelcol` (the OTLP receiver and the file exporter, no
 * more), from kop's committed module envtest/otelcol (its go.sum included) into the envtest cache
 * folder, as helm and kube-apiserver are built: Go and the module proxy, no downloaded binary.
 * Skips the build when an otelcol of the pinned version is there. Returns its path.
 */
export async function buildOtelcol(options: BuildOtelcolOptions = {}): Promise<{ path: string; built: boolean }> {
  const env = options.env ?? process.env;
  const progress = options.progress ?? (() => undefined);
  const binDir = options.binDir ?? envtestCacheDir(PINNED_KUBERNETES_VERSION, env);
  const target = join(binDir, 'otelcol');
  if (!options.force && (await otelcolVersion(target)) === PINNED_OTELCOL_VERSION) {
    progress(`otelcol ${PINNED_OTELCOL_VERSION} is already in ${binDir}`);
    return { path: target, built: false };
  }
  if (options.dryRun) {
    progress(`would build otelcol ${PINNED_OTELCOL_VERSION} into ${binDir}`);
    return { path: target, built: false };
  }
  const modules = join(committedModulesDir(), 'otelcol');
  const goLine = /^go (\S+)$/m.exec(readFileSync(join(modules, 'go.mod'), 'utf8'))?.[1];
  await assertGoVersion(goLine, `otelcol ${PINNED_OTELCOL_VERSION}`, 'set KOP_OTELCOL to an otelcol binary');
  mkdirSync(binDir, { recursive: true });
  const workDir = mkdtempSync(join(tmpdir(), 'kop-build-otelcol-'));
  const output = join(binDir, `.otelcol.${process.pid}.tmp`);
  try {
    cpSync(modules, workDir, { recursive: true });
    for (const file of ['go.mod', 'go.sum']) chmodSync(join(workDir, file), 0o644);
    const started = Date.now();
    progress(`building otelcol ${PINNED_OTELCOL_VERSION} (OTLP receiver, file exporter); a cold build takes minutes`);
    try {
      await execa('go', ['build', '-ldflags', `-s -w -X main.version=${PINNED_OTELCOL_VERSION}`, '-o', output, '.'], {
        cwd: workDir,
        env: goEnvironment(),
        all: true,
      });
    } catch (error) {
      rmSync(output, { force: true });
      const detail = (error as { all?: string }).all ?? (error as Error).message;
      throw new Error(`go build of otelcol failed:\n${detail.split('\n').slice(-30).join('\n')}`, { cause: error });
    }
    renameSync(output, target);
    progress(`built otelcol in ${Math.round((Date.now() - started) / 1000)}s`);
    return { path: target, built: true };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** The version otelcol reports (`0.161.0`), or undefined when it is missing or does not run. */
export async function otelcolVersion(path: string): Promise<string | undefined> {
  if (!existsSync(path)) return undefined;
  try {
    const { stdout } = await execa(path, ['--version'], { timeout: 20_000 });
    return /version (\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

/** otelcol was not found: the message says where kop looked and how to build it. */
export class OtelcolNotFoundError extends Error {
  constructor(readonly searched: readonly string[]) {
    super(
      `otelcol not found (looked at: ${searched.join(', ')}). Build it with \`node bin/kop.js setup-envtest --otelcol\` (needs Go), or set KOP_OTELCOL to an OpenTelemetry Collector with the otlp receiver and the file exporter.`,
    );
    this.name = 'OtelcolNotFoundError';
  }
}

/**
 * Finds otelcol for tests: `$KOP_OTELCOL` (authoritative when set), else beside the control-plane
 * binaries (`$KUBEBUILDER_ASSETS`, then the envtest cache folder `kop setup-envtest --otelcol` fills).
 */
export function findOtelcol(env: Environment = process.env): string {
  const named = env.KOP_OTELCOL;
  const candidates = named
    ? [named]
    : [
        ...(env.KUBEBUILDER_ASSETS ? [join(env.KUBEBUILDER_ASSETS, 'otelcol')] : []),
        join(envtestCacheDir(PINNED_KUBERNETES_VERSION, env), 'otelcol'),
      ];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // try the next place
    }
  }
  throw new OtelcolNotFoundError(named ? [`${named} (from $KOP_OTELCOL)`] : candidates);
}
