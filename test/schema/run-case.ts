/**
 * Shared by the schema tests: runs kop's pipeline over one case folder, the way
 * `kop generate manifests` runs it over a project's api/ directory.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCrds, formatCrd, type CrdOptions } from '../../src/schema/crd.js';
import { loadApiModel } from '../../src/schema/model.js';

export const SCHEMA_TEST_DIR = path.dirname(fileURLToPath(import.meta.url));
export const CASES_DIR = path.join(SCHEMA_TEST_DIR, 'cases');
export const ERRORS_DIR = path.join(SCHEMA_TEST_DIR, 'errors');

/** True when expected files should be rewritten from the actual output. */
export const UPDATE_GOLDEN = process.env.KOP_UPDATE_GOLDEN === '1';

/** Per-case options (`options.json`), mirrored to controller-gen flags by the conformance test. */
export type CaseOptions = CrdOptions;

export async function listCaseDirs(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

async function filesWithExtension(dir: string, extension: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesWithExtension(full, extension)));
    else if (entry.name.endsWith(extension)) out.push(full);
  }
  return out.sort();
}

export async function caseOptions(caseDir: string): Promise<CaseOptions> {
  try {
    return JSON.parse(await fs.readFile(path.join(caseDir, 'options.json'), 'utf8')) as CaseOptions;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

/** The TypeScript sources of a case: every .ts file in the folder and its sub-folders. */
export function caseTypeFiles(caseDir: string): Promise<string[]> {
  return filesWithExtension(caseDir, '.ts');
}

/** The Go sources of a case (for controller-gen). */
export function caseGoFiles(caseDir: string): Promise<string[]> {
  return filesWithExtension(caseDir, '.go');
}

/** kop's CRD YAML for a case: every CRD, sorted by file name, as one multi-document file. */
export async function generateCaseYaml(caseDir: string): Promise<string> {
  const model = await loadApiModel(caseDir, { files: await caseTypeFiles(caseDir), collectProblems: true });
  const crds = buildCrds(model, await caseOptions(caseDir));
  return crds.map((c) => formatCrd(c.crd)).join('');
}
