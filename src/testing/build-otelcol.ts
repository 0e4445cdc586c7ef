import { existsSync } from 'node:fs';
import { execa } from 'execa';
import type { Environment } from './cache-dir.js';
import { buildGoTool, findGoTool, type BuildGoToolOptions, type GoTool } from './go-tool.js';

/**
 * The OpenTelemetry Collector release kop's tracing tests export to (envtest/otelcol). The file
 * exporter lives in opentelemetry-collector-contrib, whose modules newer than this release do not
 * all resolve through the module proxy yet; the core modules are kept at the same release.
 */
export const PINNED_OTELCOL_VERSION = '0.161.0';

/** Options of {@link buildOtelcol}. */
export type BuildOtelcolOptions = BuildGoToolOptions;

const OTELCOL: GoTool = {
  name: 'otelcol',
  release: PINNED_OTELCOL_VERSION,
  what: 'OTLP receiver, file exporter',
  coldBuild: 'minutes',
  instead: 'set KOP_OTELCOL to an otelcol binary',
  buildArgs: (output) => ['build', '-ldflags', `-s -w -X main.version=${PINNED_OTELCOL_VERSION}`, '-o', output, '.'],
  installedRelease: (path) => otelcolVersion(path),
};

/**
 * Builds a minimal OpenTelemetry Collector, `otelcol` (the OTLP receiver and the file exporter, no
 * more), from kop's committed module envtest/otelcol into the envtest cache folder, as helm is
 * built; skips the build when an otelcol of the pinned version is there. Returns its path.
 */
export async function buildOtelcol(options: BuildOtelcolOptions = {}): Promise<{ path: string; built: boolean }> {
  return buildGoTool(OTELCOL, options);
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
  return findGoTool('otelcol', 'KOP_OTELCOL', env, (searched) => new OtelcolNotFoundError(searched));
}
