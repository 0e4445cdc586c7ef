import { homedir } from 'node:os';
import { join } from 'node:path';
import { PINNED_KUBERNETES_VERSION } from './versions.js';

/** Environment variables, as `process.env`; passed in so tests can use their own. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Where `kop setup-envtest` puts (and kop/testing finally looks for) the control-plane
 * binaries of one Kubernetes version: `$KOP_ENVTEST_DIR` when set, else
 * `${XDG_CACHE_HOME:-$HOME/.cache}/kop/envtest/<version>`.
 */
export function envtestCacheDir(version: string = PINNED_KUBERNETES_VERSION, env: Environment = process.env): string {
  if (env.KOP_ENVTEST_DIR) return env.KOP_ENVTEST_DIR;
  const cacheHome = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(cacheHome, 'kop', 'envtest', version);
}
