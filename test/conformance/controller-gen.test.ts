/**
 * Conformance: for every schema case with Go types, controller-gen v0.21.0 run over
 * `types.go` must produce the same CRDs as kop's expected `crd.yaml` (compared as parsed
 * objects, after removing each generator's version annotation, controller-gen's and kop's, from
 * both sides; kop's header is a comment).
 * Needs Go; where Go is absent the test says so and skips — in CI (CI=true) it must run.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { GENERATOR_ANNOTATION } from '../../src/schema/crd.js';
import { CASES_DIR, caseGoFiles, caseOptions, listCaseDirs } from '../schema/run-case.js';
import { CONTROLLER_GEN_VERSION, controllerGenCaseYaml, goAvailable } from './controller-gen-tool.js';

/** The annotations that name the generator and its version: they differ by design, and are set aside. */
const GENERATOR_ANNOTATIONS = ['controller-gen.kubebuilder.io/version', GENERATOR_ANNOTATION];

/** Parsed CRD documents sorted by name, without the generators' version annotations. */
function normalise(yamlText: string): unknown[] {
  const crds = parseAllDocuments(yamlText)
    .map((doc) => doc.toJS() as { metadata?: { name?: string; annotations?: Record<string, string> } } | null)
    .filter((doc): doc is NonNullable<typeof doc> => doc !== null);
  for (const crd of crds) {
    const annotations = crd.metadata?.annotations;
    if (annotations) {
      for (const key of GENERATOR_ANNOTATIONS) delete annotations[key];
      if (Object.keys(annotations).length === 0) delete crd.metadata!.annotations;
    }
  }
  return crds.sort((a, b) => String(a.metadata?.name).localeCompare(String(b.metadata?.name)));
}

const cases = await listCaseDirs(CASES_DIR);
const hasGo = await goAvailable();

describe.skipIf(!hasGo)(`conformance with controller-gen ${CONTROLLER_GEN_VERSION}`, () => {
  for (const name of cases) {
    it(name, { timeout: 300_000 }, async () => {
      const caseDir = path.join(CASES_DIR, name);
      const goFiles = await caseGoFiles(caseDir);
      expect(goFiles.length, `${name} has no types.go`).toBeGreaterThan(0);
      const theirs = await controllerGenCaseYaml(caseDir, goFiles, await caseOptions(caseDir));
      const ours = await fs.readFile(path.join(caseDir, 'crd.yaml'), 'utf8');
      expect(normalise(ours)).toEqual(normalise(theirs));
    });
  }
});
