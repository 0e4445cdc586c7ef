/**
 * Conformance: for every schema case with Go types, controller-gen v0.21.0 run over
 * `types.go` must produce the same CRDs as kop's expected `crd.yaml` (compared as parsed
 * objects, after removing controller-gen's version annotation; kop's header is a comment).
 * Needs Go; where Go is absent the test says so and skips — in CI (CI=true) it must run.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CASES_DIR, caseGoFiles, caseOptions, listCaseDirs } from '../schema/run-case.js';
import { CONTROLLER_GEN_VERSION, controllerGen, goAvailable, MODULE_DIR } from './controller-gen-tool.js';

/** Parsed CRD documents sorted by name, without the tool-specific version annotation. */
function normalise(yamlText: string): unknown[] {
  const crds = parseAllDocuments(yamlText)
    .map((doc) => doc.toJS() as { metadata?: { name?: string; annotations?: Record<string, string> } } | null)
    .filter((doc): doc is NonNullable<typeof doc> => doc !== null);
  for (const crd of crds) {
    const annotations = crd.metadata?.annotations;
    if (annotations) {
      delete annotations['controller-gen.kubebuilder.io/version'];
      if (Object.keys(annotations).length === 0) delete crd.metadata!.annotations;
    }
  }
  return crds.sort((a, b) => String(a.metadata?.name).localeCompare(String(b.metadata?.name)));
}

/** Copies the case's Go files into a throwaway module: `<case>/x.go` -> api/<package>/x.go, `<case>/v2/x.go` -> api/v2/x.go. */
async function prepareModule(caseDir: string, goFiles: string[]): Promise<string> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'kop-conformance-'));
  await fs.cp(MODULE_DIR, work, { recursive: true });
  for (const file of goFiles) {
    const relative = path.relative(caseDir, file);
    const text = await fs.readFile(file, 'utf8');
    const pkg = /^package\s+(\w+)/m.exec(text)?.[1] ?? 'api';
    const target = path.dirname(relative) === '.' ? path.join(work, 'api', pkg, path.basename(file)) : path.join(work, 'api', relative);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, text);
  }
  return work;
}

const cases = await listCaseDirs(CASES_DIR);
const hasGo = await goAvailable();

describe.skipIf(!hasGo)(`conformance with controller-gen ${CONTROLLER_GEN_VERSION}`, () => {
  for (const name of cases) {
    it(name, { timeout: 300_000 }, async () => {
      const caseDir = path.join(CASES_DIR, name);
      const goFiles = await caseGoFiles(caseDir);
      expect(goFiles.length, `${name} has no types.go`).toBeGreaterThan(0);
      const options = await caseOptions(caseDir);
      const work = await prepareModule(caseDir, goFiles);
      try {
        const crdOptions: string[] = [];
        if (options.allowDangerousTypes) crdOptions.push('allowDangerousTypes=true');
        if (options.maxDescriptionLength !== undefined) crdOptions.push(`maxDescLen=${options.maxDescriptionLength}`);
        const crdArgs = [crdOptions.length > 0 ? `crd:${crdOptions.join(',')}` : 'crd'];
        const tool = await controllerGen();
        await execa(tool, [...crdArgs, 'paths=./api/...', 'output:crd:dir=out'], { cwd: work, env: { GOFLAGS: '-mod=mod' } });
        const outDir = path.join(work, 'out');
        const outputs = (await fs.readdir(outDir)).sort();
        const theirs = (await Promise.all(outputs.map((f) => fs.readFile(path.join(outDir, f), 'utf8')))).join('\n');
        const ours = await fs.readFile(path.join(caseDir, 'crd.yaml'), 'utf8');
        expect(normalise(ours)).toEqual(normalise(theirs));
      } finally {
        await fs.rm(work, { recursive: true, force: true });
      }
    });
  }
});
