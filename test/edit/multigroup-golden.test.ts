import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { generators } from '../../src/commands/generate.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runInit } from '../../src/init/run-init.js';
import { runDeployImage } from '../../src/plugins/deploy-image/run-deploy-image.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { listFiles } from '../helpers/files.js';
import { expectGoldenFiles, GOLDEN_INIT_OPTIONS, GOLDEN_NOW, UPDATE_GOLDEN } from '../helpers/golden.js';

/**
 * test/golden/multigroup: the files of a multigroup project (`kop init --plugins go/v4
 * --multigroup`, fixed inputs) under src/, test/ and config/rbac, with PROJECT, after the
 * multigroup part of Kubebuilder's testdata: Bar in groups foo and fiz (each with a defaulting
 * and a validating webhook), a reconciler for apps/v1 Deployment, and a deploy-image Busybox in
 * example.com; then `kop generate` (RBAC role, webhook manifests). Regenerate with
 * KOP_UPDATE_GOLDEN=1 and review the diff; test/e2e/multigroup.test.ts compiles and runs such a project.
 */
const GOLDEN = fileURLToPath(new URL('../golden/multigroup', import.meta.url));

describe('kop multigroup golden files', () => {
  it(`match test/golden/multigroup${UPDATE_GOLDEN ? ' (updating)' : ''}`, async () => {
    const { dir, cleanup } = await tempDir('demo');
    const context = () => testContext({ cwd: dir, now: GOLDEN_NOW });
    try {
      await runInit({ ...GOLDEN_INIT_OPTIONS, plugins: ['go/v4'], multigroup: true }, context());
      for (const group of ['foo', 'fiz']) {
        await runCreateApi({ group, version: 'v1', kind: 'Bar', resource: true, controller: true }, context());
        await runCreateWebhook(
          { group, version: 'v1', kind: 'Bar', defaulting: true, programmaticValidation: true },
          context(),
        );
      }
      await runCreateApi(
        { group: 'apps', version: 'v1', kind: 'Deployment', resource: false, controller: true },
        context(),
      );
      await runDeployImage(
        { group: 'example.com', version: 'v1alpha1', kind: 'Busybox', image: 'busybox:1.36.1' },
        context(),
      );
      await runGenerate({ check: false, generators }, context());
      const files = (await listFiles(dir)).filter(
        (file) =>
          (file.startsWith('src/') && file !== 'src/flags.ts') ||
          file.startsWith('test/controllers/') ||
          /^test\/webhooks\/f/.test(file) ||
          file.startsWith('config/rbac/role') ||
          file === 'config/webhook/manifests.yaml' ||
          file === 'PROJECT',
      );
      await expectGoldenFiles(dir, files, GOLDEN);
    } finally {
      await cleanup();
    }
  });
});
