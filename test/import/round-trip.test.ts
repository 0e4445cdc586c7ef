/**
 * The round trip on kop's own schema cases (test/schema/cases/<case>/crd.yaml, each compared with
 * controller-gen by test/conformance): `kop import crd --own` then `kop generate manifests` gives
 * back the same bytes, since both sides are kop's YAML. Cases whose CRDs need what no marker
 * expresses round-trip with --raw-schema.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatCrd, type CustomResourceDefinition } from '../../src/schema/crd.js';
import { caseOptions, CASES_DIR, listCaseDirs } from '../schema/run-case.js';
import { bareProject, importAndGenerate, yamlDocuments } from './import-helpers.js';

/** Cases kop writes with a layer of allOf (a field and its named type setting one keyword differently): verbatim with --raw-schema. */
const NEEDS_RAW_SCHEMA = new Set(['defaults-all-of', 'marker-layers', 'validation']);

const cases = await listCaseDirs(CASES_DIR);

describe('kop import crd --own on the schema cases gives back their bytes', () => {
  for (const name of cases) {
    it(
      name,
      async (context) => {
        const options = await caseOptions(path.join(CASES_DIR, name));
        // A case generated with a description cap has descriptions kop cannot give back whole.
        if (options.maxDescriptionLength !== undefined) context.skip();
        // Embedded metadata with its properties is not a core type's schema kop import recognises;
        // importing CRDs generated with crd:generateEmbeddedObjectMeta is not covered yet.
        if (options.generateEmbeddedObjectMeta) context.skip();
        const text = await fs.readFile(path.join(CASES_DIR, name, 'crd.yaml'), 'utf8');
        const project = await bareProject();
        try {
          const file = path.join(project.dir, 'input.yaml');
          await fs.writeFile(file, text);
          await importAndGenerate(project.dir, { sources: [file], own: true, rawSchema: NEEDS_RAW_SCHEMA.has(name) });
          for (const crd of yamlDocuments(text) as CustomResourceDefinition[]) {
            const generated = await fs.readFile(
              path.join(project.dir, 'config/crd/bases', `${crd.spec.group}_${crd.spec.names.plural}.yaml`),
              'utf8',
            );
            expect(generated).toBe(formatCrd(crd));
          }
        } finally {
          await project.cleanup();
        }
      },
      60_000,
    );
  }
});
