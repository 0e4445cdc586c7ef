import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { envtestCacheDir, type Environment } from './cache-dir.js';
import { PINNED_KUBERNETES_VERSION, type ControlPlaneBinary } from './versions.js';

/** Paths of the programs a control plane runs. */
export interface ControlPlaneBinaryPaths {
  kubeApiServer: string;
  etcd: string;
  /** Not needed to run the control plane; present when found, for tests that shell out to it. */
  kubectl?: string;
}

/** Explicit paths that win over every other place. */
export interface BinaryPathOptions {
  kubeApiServer?: string;
  etcd?: string;
  kubectl?: string;
}

/** Where envtest users point at binaries, by binary. */
const TEST_ASSET_VARIABLES: Record<ControlPlaneBinary, string> = {
  'kube-apiserver': 'TEST_ASSET_KUBE_APISERVER',
  etcd: 'TEST_ASSET_ETCD',
  kubectl: 'TEST_ASSET_KUBECTL',
};

/** Kubebuilder's default install folder. */
export const KUBEBUILDER_DEFAULT_ASSETS = '/usr/local/kubebuilder/bin';

/** The control-plane binaries were not found; the message says where kop looked and how to get them. */
export class ControlPlaneBinariesNotFoundError extends Error {
  constructor(
    readonly binary: ControlPlaneBinary,
    readonly searched: readonly string[],
  ) {
    super(
      `${binary} not found (looked at: ${searched.join(', ')}). ` +
        'Get the test control plane with `npx kop setup-envtest` (downloads prebuilt binaries in seconds, or builds them ' +
        'with Go in minutes where it cannot; cached), or point KUBEBUILDER_ASSETS at a folder with kube-apiserver, etcd and kubectl.',
    );
    this.name = 'ControlPlaneBinariesNotFoundError';
  }
}

/**
 * Finds one binary in envtest's order: an explicit path, `TEST_ASSET_<NAME>`,
 * `$KUBEBUILDER_ASSETS/<name>`, `/usr/local/kubebuilder/bin/<name>`, then kop's own cache
 * folder filled by `kop setup-envtest`. A place the user named explicitly (option or
 * variable) is authoritative: if the file is not there, that is an error rather than a
 * silent fall-through to some other version.
 */
export function findControlPlaneBinary(
  binary: ControlPlaneBinary,
  explicitPath?: string,
  env: Environment = process.env,
): string {
  const variable = TEST_ASSET_VARIABLES[binary];
  const named =
    explicitPath ?? env[variable] ?? (env.KUBEBUILDER_ASSETS ? join(env.KUBEBUILDER_ASSETS, binary) : undefined);
  if (named) {
    if (isExecutable(named)) return named;
    throw new ControlPlaneBinariesNotFoundError(binary, [describeNamed(binary, named, explicitPath, env)]);
  }
  const defaults = [
    join(KUBEBUILDER_DEFAULT_ASSETS, binary),
    join(envtestCacheDir(PINNED_KUBERNETES_VERSION, env), binary),
  ];
  const found = defaults.find(isExecutable);
  if (found) return found;
  throw new ControlPlaneBinariesNotFoundError(binary, [
    `$${variable} (unset)`,
    '$KUBEBUILDER_ASSETS (unset)',
    ...defaults,
  ]);
}

/** Finds kube-apiserver and etcd (required) and kubectl (optional). */
export function findControlPlaneBinaries(
  explicit: BinaryPathOptions = {},
  env: Environment = process.env,
): ControlPlaneBinaryPaths {
  const paths: ControlPlaneBinaryPaths = {
    kubeApiServer: findControlPlaneBinary('kube-apiserver', explicit.kubeApiServer, env),
    etcd: findControlPlaneBinary('etcd', explicit.etcd, env),
  };
  try {
    paths.kubectl = findControlPlaneBinary('kubectl', explicit.kubectl, env);
  } catch (error) {
    if (!(error instanceof ControlPlaneBinariesNotFoundError)) throw error;
  }
  return paths;
}

function describeNamed(
  binary: ControlPlaneBinary,
  path: string,
  explicitPath: string | undefined,
  env: Environment,
): string {
  if (explicitPath) return `${path} (from options)`;
  if (env[TEST_ASSET_VARIABLES[binary]]) return `${path} (from $${TEST_ASSET_VARIABLES[binary]})`;
  return `${path} (from $KUBEBUILDER_ASSETS)`;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
