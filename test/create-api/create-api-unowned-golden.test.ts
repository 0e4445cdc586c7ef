import { copyFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { runCreateApi, type CreateApiOptions } from '../../src/create-api/run-create-api.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { expectGoldenFiles, GOLDEN_INIT_OPTIONS, GOLDEN_NOW, UPDATE_GOLDEN } from '../helpers/golden.js';

/**
 * test/golden/create-api-unowned holds every file `kop create api` creates or updates for
 * reconcilers of kinds the project does not own (apps/v1 Deployment, core/v1 ConfigMap, an
 * external Issuer from a CRD file) and for two named reconcilers of one kind (Kubebuilder's
 * captain and captain-backup), in a project made by `kop init` with fixed inputs.
 * Regenerate with KOP_UPDATE_GOLDEN=1 and review the diff.
 */
const GOLDEN = fileURLToPath(new URL('../golden/create-api-unowned', import.meta.url));
const CRDS = fileURLToPath(new URL('../fixtures/external-crds/issuers.yaml', import.meta.url));

const RUNS: CreateApiOptions[] = [
  { group: 'apps', version: 'v1', kind: 'Deployment', resource: false, controller: true },
  { group: 'core', version: 'v1', kind: 'ConfigMap', resource: false, controller: true },
  { group: 'crew', version: 'v1', kind: 'Captain', resource: true, controller: true, controllerName: 'captain' },
  {
    group: 'crew',
    version: 'v1',
    kind: 'Captain',
    resource: false,
    controller: true,
    controllerName: 'captain-backup',
  },
  {
    group: 'cert-manager',
    version: 'v1',
    kind: 'Issuer',
    resource: false,
    controller: true,
    externalApiPath: 'api/cert-manager/v1',
    externalApiDomain: 'io',
    externalApiModule: './issuers.yaml',
  },
];

describe('kop create api golden files for unowned kinds and named reconcilers', () => {
  it(`match test/golden/create-api-unowned${UPDATE_GOLDEN ? ' (updating)' : ''}`, async () => {
    const { dir, cleanup } = await tempDir('demo');
    try {
      await runInit(GOLDEN_INIT_OPTIONS, testContext({ cwd: dir, now: GOLDEN_NOW }));
      await copyFile(CRDS, path.join(dir, 'issuers.yaml'));
      const touched = new Set<string>();
      for (const options of RUNS) {
        const result = await runCreateApi(options, testContext({ cwd: dir, now: GOLDEN_NOW }));
        for (const change of result.changes)
          if (change.action === 'create' || change.action === 'update') touched.add(change.path);
      }
      await expectGoldenFiles(dir, [...touched].sort(), GOLDEN);
    } finally {
      await cleanup();
    }
  });
});
