import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import type { Environment } from './cache-dir.js';
import { buildGoTool, findGoTool, type BuildGoToolOptions, type GoTool } from './go-tool.js';

/** The Helm release kop's chart tests run (envtest/helm). */
export const PINNED_HELM_VERSION = '4.3.1';

/** Options of {@link buildHelm}. */
export type BuildHelmOptions = BuildGoToolOptions;

const HELM: GoTool = {
  name: 'helm',
  release: `v${PINNED_HELM_VERSION}`,
  what: 'helm.sh/helm/v4/cmd/helm',
  coldBuild: '3 to 10 minutes',
  instead: 'set KOP_HELM to a helm binary',
  buildArgs: (output) => [
    'build',
    '-ldflags',
    `-s -w -X helm.sh/helm/v4/internal/version.version=v${PINNED_HELM_VERSION}`,
    '-o',
    output,
    'helm.sh/helm/v4/cmd/helm',
  ],
  installedRelease: (path) => helmVersion(path),
};

/**
 * Builds helm from kop's committed module envtest/helm (helm.sh/helm/v4 at the pinned release) into
 * the envtest cache folder; skips the build when a helm of the pinned version is there. Returns its path.
 */
export async function buildHelm(options: BuildHelmOptions = {}): Promise<{ path: string; built: boolean }> {
  return buildGoTool(HELM, options);
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
  return findGoTool('helm', 'KOP_HELM', env, (searched) => new HelmNotFoundError(searched));
}
