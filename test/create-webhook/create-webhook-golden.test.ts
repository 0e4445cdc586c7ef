import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { generators } from '../../src/commands/generate.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runImportCrd } from '../../src/import/run-import-crd.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { expectGoldenFiles, GOLDEN_INIT_OPTIONS, GOLDEN_NOW, UPDATE_GOLDEN } from '../helpers/golden.js';

/**
 * test/golden/create-webhook/conversion holds every file `kop create webhook` creates or updates, and the
 * webhook files `kop generate` then writes, in a project made by `kop init` with fixed inputs
 * after adding RedisCluster in cache/v1 (with a reconciler) and cache/v1alpha1: a defaulting, a
 * validating and a conversion webhook with v1 as the hub. Regenerate with KOP_UPDATE_GOLDEN=1
 * and review the diff; test/e2e/create-webhook.test.ts compiles and runs them.
 */
const GOLDEN = fileURLToPath(new URL('../golden/create-webhook/conversion', import.meta.url));
/**
 * test/golden/create-webhook/kinds: the other kinds a webhook is for, each added in two calls as
 * Kubebuilder's testdata does (defaulting, then validation): a project kind with custom paths
 * (--defaulting-path, --validation-path), built-in Pod (core) and Deployment (apps), and an
 * external Issuer imported by `kop import crd` from issuer-crd.yaml.
 */
const GOLDEN_KINDS = fileURLToPath(new URL('../golden/create-webhook/kinds', import.meta.url));
const ISSUER_CRD = fileURLToPath(new URL('../golden/create-webhook/issuer-crd.yaml', import.meta.url));

describe('kop create webhook golden files', () => {
  it(`match test/golden/create-webhook/conversion${UPDATE_GOLDEN ? ' (updating)' : ''}`, async () => {
    const { dir, cleanup } = await tempDir('demo');
    const context = () => testContext({ cwd: dir, now: GOLDEN_NOW });
    try {
      await runInit(GOLDEN_INIT_OPTIONS, context());
      await runCreateApi({ group: 'cache', version: 'v1', kind: 'RedisCluster' }, context());
      await runCreateApi({ group: 'cache', version: 'v1alpha1', kind: 'RedisCluster', controller: false }, context());
      const result = await runCreateWebhook(
        {
          group: 'cache',
          version: 'v1',
          kind: 'RedisCluster',
          defaulting: true,
          programmaticValidation: true,
          conversion: true,
          spoke: ['v1alpha1'],
        },
        context(),
      );
      const touched = new Set(
        result.changes.filter((c) => c.action === 'create' || c.action === 'update').map((c) => c.path),
      );
      await runGenerate({ check: false, generators }, context());
      for (const file of [
        'config/crd/kustomization.yaml',
        'config/crd/kustomizeconfig.yaml',
        'config/crd/patches/webhook_in_redisclusters.yaml',
        'config/default/webhook_replacements.yaml',
        'config/webhook/kustomization.yaml',
        'config/webhook/manifests.yaml',
      ]) {
        touched.add(file);
      }
      touched.delete('PROJECT');
      await expectGoldenFiles(dir, [...touched, 'PROJECT'].sort(), GOLDEN);
    } finally {
      await cleanup();
    }
  });

  it(`match test/golden/create-webhook/kinds${UPDATE_GOLDEN ? ' (updating)' : ''}`, async () => {
    const { dir, cleanup } = await tempDir('demo');
    const context = () => testContext({ cwd: dir, now: GOLDEN_NOW });
    try {
      await runInit(GOLDEN_INIT_OPTIONS, context());
      await runCreateApi({ group: 'crew', version: 'v1', kind: 'Sailor' }, context());
      await runImportCrd({ sources: [ISSUER_CRD] }, context());
      const touched = new Set<string>();
      for (const options of [
        { group: 'crew', version: 'v1', kind: 'Sailor', defaulting: true, defaultingPath: '/custom-mutate-sailor' },
        {
          group: 'crew',
          version: 'v1',
          kind: 'Sailor',
          programmaticValidation: true,
          validationPath: '/custom-validate-sailor',
        },
        { group: 'core', version: 'v1', kind: 'Pod', defaulting: true },
        { group: 'apps', version: 'v1', kind: 'Deployment', defaulting: true },
        { group: 'apps', version: 'v1', kind: 'Deployment', programmaticValidation: true },
        { group: 'cert-manager', version: 'v1', kind: 'Issuer', defaulting: true, externalApiDomain: 'io' },
      ]) {
        const result = await runCreateWebhook(options, context());
        for (const change of result.changes)
          if (change.action === 'create' || change.action === 'update') touched.add(change.path);
      }
      await runGenerate({ check: false, generators }, context());
      touched.add('config/webhook/manifests.yaml');
      touched.delete('PROJECT');
      // The files create webhook shares with the conversion variant are compared there.
      for (const file of [...touched])
        if (file.startsWith('config/') && file !== 'config/webhook/manifests.yaml') touched.delete(file);
      await expectGoldenFiles(dir, [...touched, 'PROJECT'].sort(), GOLDEN_KINDS);
    } finally {
      await cleanup();
    }
  });
});
