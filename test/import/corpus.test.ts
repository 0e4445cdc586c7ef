/**
 * The round trip on published CRDs (test/import/corpus/SOURCES.md): `kop import crd --own`, then
 * `kop generate manifests`, gives back the identical CRD; an external import gives a typed client
 * and no CRD, with the same schemas (checked by the import itself).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bareProject, comparable, importAndGenerate, yamlDocuments } from './import-helpers.js';

const CORPUS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'corpus');

interface CorpusEntry {
  file: string;
  repository: string;
  commit: string;
  own: boolean;
  rawSchema: boolean;
  sha256: string;
}

/** The rows of SOURCES.md's table. */
function corpusEntries(): CorpusEntry[] {
  const rows = readFileSync(path.join(CORPUS, 'SOURCES.md'), 'utf8').split('\n').filter((line) => /^\| [\w.-]+\.yaml \|/.test(line));
  return rows.map((row) => {
    const [file, repository, , commit, , use, sha256] = row.split('|').slice(1, -1).map((cell) => cell.trim());
    return { file: file!, repository: repository!, commit: commit!, own: use!.startsWith('own'), rawSchema: use!.includes('--raw-schema'), sha256: sha256! };
  });
}

const entries = corpusEntries();
const missing = entries.filter((e) => !existsSync(path.join(CORPUS, e.file)));
if (missing.length > 0) console.warn(`import corpus: ${missing.length} of ${entries.length} files are not in test/import/corpus (see SOURCES.md), so the corpus round trip is skipped`);

describe('the corpus', () => {
  it('lists at least 10 CRDs to own, from several operators', () => {
    const owned = entries.filter((e) => e.own);
    expect(owned.length).toBeGreaterThanOrEqual(10);
    expect(new Set(owned.map((e) => e.repository)).size).toBeGreaterThanOrEqual(8);
  });
});

describe.skipIf(missing.length > 0)('kop import crd on the corpus', () => {
  for (const entry of entries) {
    it(`${entry.file} (${entry.own ? 'owned' : 'external'}${entry.rawSchema ? ', --raw-schema' : ''})`, async () => {
      const file = path.join(CORPUS, entry.file);
      const text = await fs.readFile(file, 'utf8');
      expect(createHash('sha256').update(text).digest('hex').slice(0, 16), 'the file is the one SOURCES.md names').toBe(entry.sha256);
      const project = await bareProject();
      try {
        await importAndGenerate(project.dir, { sources: [file], own: entry.own, rawSchema: entry.rawSchema });
        for (const input of yamlDocuments(text) as { spec: { group: string; names: { plural: string; kind: string } } }[]) {
          const crdFile = path.join(project.dir, 'config/crd/bases', `${input.spec.group}_${input.spec.names.plural}.yaml`);
          if (entry.own) {
            const [generated] = yamlDocuments(await fs.readFile(crdFile, 'utf8'));
            expect(comparable(generated), `${input.spec.names.kind}: kop generate manifests gives back the CRD`).toBe(comparable(input));
          } else {
            expect(existsSync(crdFile), `${input.spec.names.kind}: no CRD for an external kind`).toBe(false);
          }
        }
      } finally {
        await project.cleanup();
      }
    }, 120_000);
  }
});
