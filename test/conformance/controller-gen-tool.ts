/** Finding Go and controller-gen for the conformance tests. */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';

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
    await execa('go', ['install', `sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}`], {
      env: { GOBIN: bin },
    });
  }
  return file;
}

/**
 * Runs controller-gen with `generatorArgs` (for example `webhook`) over a throwaway package
 * whose only content is `markerLines` as package-level comments, and returns its stdout.
 */
export async function controllerGenOnMarkers(
  generatorArgs: readonly string[],
  markerLines: readonly string[],
): Promise<string> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'kop-markers-'));
  try {
    await fs.cp(MODULE_DIR, work, { recursive: true });
    await fs.mkdir(path.join(work, 'controllers'));
    // Package-level markers: a comment group not attached to a declaration.
    await fs.writeFile(
      path.join(work, 'controllers', 'markers.go'),
      `package controllers\n\n${markerLines.map((l) => `// ${l}`).join('\n')}\n\nfunc unused() {}\n`,
    );
    const result = await execa(await controllerGen(), [...generatorArgs, 'paths=./controllers/...', 'output:stdout'], {
      cwd: work,
      env: { GOFLAGS: '-mod=mod' },
    });
    return result.stdout;
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** controller-gen's flags for a case's options (`options.json`). */
export interface ControllerGenCaseOptions {
  allowDangerousTypes?: boolean;
  maxDescriptionLength?: number;
  generateEmbeddedObjectMeta?: boolean;
}

/**
 * controller-gen's CRDs for the Go twin of a schema case, as one multi-document text: the
 * case's Go files are copied into a throwaway module, `<case>/x.go` -> api/<package>/x.go,
 * `<case>/v2/x.go` -> api/v2/x.go.
 */
export async function controllerGenCaseYaml(
  caseDir: string,
  goFiles: readonly string[],
  options: ControllerGenCaseOptions = {},
): Promise<string> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'kop-conformance-'));
  try {
    await fs.cp(MODULE_DIR, work, { recursive: true });
    for (const file of goFiles) {
      const relative = path.relative(caseDir, file);
      const text = await fs.readFile(file, 'utf8');
      const pkg = /^package\s+(\w+)/m.exec(text)?.[1] ?? 'api';
      const target =
        path.dirname(relative) === '.'
          ? path.join(work, 'api', pkg, path.basename(file))
          : path.join(work, 'api', relative);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, text);
    }
    const crdOptions: string[] = [];
    if (options.allowDangerousTypes) crdOptions.push('allowDangerousTypes=true');
    if (options.maxDescriptionLength !== undefined) crdOptions.push(`maxDescLen=${options.maxDescriptionLength}`);
    if (options.generateEmbeddedObjectMeta) crdOptions.push('generateEmbeddedObjectMeta=true');
    const crdArgs = [crdOptions.length > 0 ? `crd:${crdOptions.join(',')}` : 'crd'];
    await execa(await controllerGen(), [...crdArgs, 'paths=./api/...', 'output:crd:dir=out'], {
      cwd: work,
      env: { GOFLAGS: '-mod=mod' },
    });
    const outDir = path.join(work, 'out');
    const outputs = (await fs.readdir(outDir)).sort();
    return (await Promise.all(outputs.map((f) => fs.readFile(path.join(outDir, f), 'utf8')))).join('\n');
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** The YAML documents of a multi-document text as plain data, without empty documents. */
export function parseDocuments(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as unknown)
    .filter((doc) => doc !== null);
}
