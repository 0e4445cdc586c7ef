/** Shared by the import tests: a bare kop project in a temp folder, and importing then generating in it. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { generators } from '../../src/commands/generate.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runImportCrd, type ImportCrdOptions, type ImportCrdResult } from '../../src/import/run-import-crd.js';
import { canonicalJson } from '../../src/import/canonical-json.js';
import { GENERATOR_ANNOTATION } from '../../src/schema/crd.js';
import { testContext, tempDir } from '../helpers/fake-context.js';

export const PROJECT_TEXT = `version: "1"
layout:
  - kop.dev/typescript/v1
domain: example.com
projectName: demo
resources: []
`;

/** A folder with only a PROJECT file: all `kop import crd` and `kop generate` need. */
export async function bareProject(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const project = await tempDir('demo');
  await fs.writeFile(path.join(project.dir, 'PROJECT'), PROJECT_TEXT);
  return project;
}

/** `kop import crd` with `options`, then `kop generate` (manifests and client), as the command runs them. */
export async function importAndGenerate(
  dir: string,
  options: ImportCrdOptions,
  stdin?: string,
): Promise<ImportCrdResult & { lines: string[]; warnings: string[] }> {
  const context = testContext({ cwd: dir });
  const result = await runImportCrd(options, context, async () => stdin ?? '');
  await runGenerate({ check: false, generators }, context);
  return { ...result, lines: context.out.lines, warnings: context.out.warnings };
}

/** The YAML documents of a text as data. */
export function yamlDocuments(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as unknown)
    .filter((d) => d !== null);
}

/** A CRD as kop compares it: without the generators' version annotations (controller-gen's, kop's), `required` sorted. */
export function comparable(crd: unknown): string {
  const copy = structuredClone(crd) as { metadata: { annotations?: Record<string, string> } };
  delete copy.metadata.annotations?.['controller-gen.kubebuilder.io/version'];
  delete copy.metadata.annotations?.[GENERATOR_ANNOTATION];
  if (copy.metadata.annotations && Object.keys(copy.metadata.annotations).length === 0)
    delete copy.metadata.annotations;
  const sortRequired = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(sortRequired);
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [
        k,
        k === 'required' && Array.isArray(v) && v.every((x) => typeof x === 'string') ? [...v].sort() : sortRequired(v),
      ]),
    );
  };
  return canonicalJson(sortRequired(copy));
}

/** Every file under a folder, project-relative, sorted. */
export async function listFiles(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full, base)));
    else out.push(path.relative(base, full));
  }
  return out.sort();
}
