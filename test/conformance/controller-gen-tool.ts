/** Finding Go and controller-gen for the conformance tests. */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const CONTROLLER_GEN_VERSION = 'v0.21.0';

/** The throwaway Go module (go.mod, go.sum, pinned Kubernetes modules) copied for every run. */
export const MODULE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'go-module');

export async function goAvailable(): Promise<boolean> {
  try {
    await execa('go', ['version']);
    return true;
  } catch {
    if (process.env.CI) throw new Error('Go is required for the controller-gen conformance tests in CI');
    console.warn('conformance: Go is not installed here, so the controller-gen comparison is skipped');
    return false;
  }
}

/** controller-gen from the shared tool cache, installed through the Go module proxy on first use. */
export async function controllerGen(): Promise<string> {
  const cache = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  const bin = path.join(cache, 'kop', 'tools', `controller-gen-${CONTROLLER_GEN_VERSION}`);
  const file = path.join(bin, 'controller-gen');
  try {
    await fs.access(file);
  } catch {
    await execa('go', ['install', `sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}`], { env: { GOBIN: bin } });
  }
  return file;
}
