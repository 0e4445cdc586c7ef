/**
 * The round trip on published CRDs (test/import/corpus/SOURCES.md): `kop import crd --own`, then
 * `kop generate manifests`, gives back the identical CRD; an external import gives a typed client
 * and no CRD, with the same schemas (checked by the import itself).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { corpusEntries, fetchImportCorpus } from '../../hack/import-corpus.mjs';
import { bareProject, comparable, importAndGenerate, yamlDocuments } from './import-helpers.js';

const entries = corpusEntries();

describe('the corpus', () => {
  it('lists at least 10 CRDs to own, from several operators', () => {
    const owned = entries.filter((e) => e.own);
    expect(owned.length).toBeGreaterThanOrEqual(10);
    expect(new Set(owned.map((e) => e.module)).size).toBeGreaterThanOrEqual(8);
  });
});

describe('kop import crd on the corpus', () => {
  // Missing files come from the Go module proxy (hack/import-corpus.mjs), as the control plane's binaries do.
  beforeAll(() => fetchImportCorpus(), 600_000);

  it('covers what the issue names: several versions, heavy CEL, defaults, embedded core types, list-map keys, /scale, printer columns', async () => {
    const owned = await Promise.all(
      entries.filter((e) => e.own).map(async (e) => ({ file: e.file, text: await fs.readFile(e.path, 'utf8') })),
    );
    const holding = (pattern: RegExp) => owned.filter((o) => pattern.test(o.text)).map((o) => o.file);
    const celRules = (text: string) =>
      (text.match(/^\s*- (?:fieldPath|message|messageExpression|reason|rule):/gm) ?? []).length;
    const multiVersion = owned.filter(
      (o) => ((yamlDocuments(o.text)[0] as { spec: { versions: unknown[] } }).spec.versions.length ?? 0) > 1,
    );
    expect(multiVersion.length, 'CRDs with several versions').toBeGreaterThanOrEqual(3);
    expect(Math.max(...owned.map((o) => celRules(o.text))), 'CEL rules in the heaviest CRD').toBeGreaterThanOrEqual(50);
    expect(holding(/^\s+default:/m).length, 'CRDs with defaults').toBeGreaterThanOrEqual(3);
    expect(holding(/^\s+x-kubernetes-list-map-keys:/m).length, 'CRDs with list-map keys').toBeGreaterThanOrEqual(3);
    expect(holding(/^\s+scale:\n\s+labelSelectorPath:/m).length, 'CRDs with /scale').toBeGreaterThanOrEqual(2);
    expect(holding(/^[\s-]+additionalPrinterColumns:/m).length, 'CRDs with printer columns').toBeGreaterThanOrEqual(5);
    // A pod template's containers, as in the Argo Rollout and the KEDA ScaledJob.
    expect(
      holding(/^\s+containers:\n\s+description: \|-\n\s+List of containers belonging to the pod\./m).length,
      'CRDs embedding a PodSpec',
    ).toBeGreaterThanOrEqual(2);
  });

  for (const entry of entries) {
    it(`${entry.file} (${entry.own ? 'owned' : 'external'}${entry.rawSchema ? ', --raw-schema' : ''})`, async () => {
      const file = entry.path;
      const text = await fs.readFile(file, 'utf8');
      expect(createHash('sha256').update(text).digest('hex').slice(0, 16), 'the file is the one SOURCES.md names').toBe(
        entry.sha256,
      );
      const project = await bareProject();
      try {
        await importAndGenerate(project.dir, { sources: [file], own: entry.own, rawSchema: entry.rawSchema });
        for (const input of yamlDocuments(text) as {
          spec: { group: string; names: { plural: string; kind: string } };
        }[]) {
          const crdFile = path.join(
            project.dir,
            'config/crd/bases',
            `${input.spec.group}_${input.spec.names.plural}.yaml`,
          );
          if (entry.own) {
            const [generated] = yamlDocuments(await fs.readFile(crdFile, 'utf8'));
            expect(comparable(generated), `${input.spec.names.kind}: kop generate manifests gives back the CRD`).toBe(
              comparable(input),
            );
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
