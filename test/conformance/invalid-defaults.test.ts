/**
 * The defaults kop refuses are the defaults the apiserver refuses. For every schema error
 * case with a Go twin (`types.go`), controller-gen v0.21.0 — which does not check defaults —
 * writes the CRD, and a real kube-apiserver (kop/testing, server-side dry run) must refuse
 * it, naming exactly the fields kop names. The good twin, case defaults-all-of, is accepted
 * in both kop's and controller-gen's form.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StructuralSchemaError } from '../../src/schema/errors.js';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { apiRequest } from '../testing/helpers.js';
import { CASES_DIR, caseGoFiles, ERRORS_DIR, generateCaseYaml, listCaseDirs } from '../schema/run-case.js';
import { CONTROLLER_GEN_VERSION, controllerGenCaseYaml, goAvailable, parseDocuments } from './controller-gen-tool.js';

interface StatusCause {
  field?: string;
  message?: string;
}

const hasGo = await goAvailable();
const twins: string[] = [];
for (const name of await listCaseDirs(ERRORS_DIR))
  if ((await caseGoFiles(path.join(ERRORS_DIR, name))).length > 0) twins.push(name);

let plane: ControlPlane;

const dryRunCreate = (crd: unknown) =>
  apiRequest(plane, plane.admin, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', crd);

/** `spec.validation.openAPIV3Schema.properties[spec].properties[port].default.x` -> `.spec.port`, kop's form. */
function schemaPath(field: string): string {
  const inSchema = field.slice(field.indexOf('openAPIV3Schema') + 'openAPIV3Schema'.length);
  const node = inSchema.slice(0, inSchema.lastIndexOf('.default'));
  return node.replace(/\.properties\[([^\]]+)\]/g, '.$1').replace(/\.items/g, '[*]') || '.';
}

async function kopViolations(caseDir: string): Promise<StructuralSchemaError> {
  try {
    await generateCaseYaml(caseDir);
  } catch (error) {
    if (error instanceof StructuralSchemaError) return error;
    throw error;
  }
  throw new Error(`${caseDir}: kop generated the CRD without an error`);
}

describe.skipIf(!hasGo)(
  `defaults kop refuses, refused by the apiserver too (CRDs by controller-gen ${CONTROLLER_GEN_VERSION})`,
  () => {
    beforeAll(async () => {
      plane = await startControlPlane();
    }, 120_000);

    afterAll(async () => {
      await plane?.stop();
    });

    it('has error cases with Go twins', () => {
      expect(twins.length).toBeGreaterThanOrEqual(3);
    });

    for (const name of twins) {
      it(name, { timeout: 300_000 }, async () => {
        const caseDir = path.join(ERRORS_DIR, name);
        const kop = await kopViolations(caseDir);
        const [crd] = parseDocuments(await controllerGenCaseYaml(caseDir, await caseGoFiles(caseDir)));
        const response = await dryRunCreate(crd);
        expect(response.status, response.body).toBe(422);
        const causes = response.json<{ details: { causes: StatusCause[] } }>().details.causes;
        for (const cause of causes) expect(cause.field, JSON.stringify(cause)).toMatch(/\.default(\.|$)/);
        const serverPaths = [...new Set(causes.map((c) => schemaPath(c.field!)))].sort();
        const kopPaths = [...new Set(kop.violations.map((v) => v.path))].sort();
        expect(kopPaths).toEqual(serverPaths);
      });
    }

    it('accepts the good twin, defaults-all-of, from kop and from controller-gen', { timeout: 300_000 }, async () => {
      const caseDir = path.join(CASES_DIR, 'defaults-all-of');
      const [ours] = parseDocuments(await fs.readFile(path.join(caseDir, 'crd.yaml'), 'utf8'));
      const [theirs] = parseDocuments(await controllerGenCaseYaml(caseDir, await caseGoFiles(caseDir)));
      for (const crd of [ours, theirs]) {
        const response = await dryRunCreate(crd);
        expect(response.status, response.body).toBe(201);
      }
    });
  },
);
