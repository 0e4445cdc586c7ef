import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { runInit } from '../../src/init/run-init.js';
import { runCreateApiWithPlugins } from '../../src/plugins/run-create-api-plugins.js';
import { runEdit } from '../../src/edit/run-edit-plugins.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { expectGoldenFiles, GOLDEN_INIT_OPTIONS, GOLDEN_NOW, UPDATE_GOLDEN } from '../helpers/golden.js';

/**
 * test/golden/plugins holds every file Kubebuilder's with-plugins commands create or update in a
 * project made by `kop init` with fixed inputs: deploy-image's Memcached (every flag) and Busybox
 * (image only), then the grafana plugin. Regenerate with KOP_UPDATE_GOLDEN=1 and review the diff.
 */
const GOLDEN = fileURLToPath(new URL('../golden/plugins', import.meta.url));

describe('plugins golden files', () => {
  it(`match test/golden/plugins${UPDATE_GOLDEN ? ' (updating)' : ''}`, async () => {
    const { dir, cleanup } = await tempDir('demo');
    try {
      await runInit(GOLDEN_INIT_OPTIONS, testContext({ cwd: dir, now: GOLDEN_NOW }));
      const touched = new Set<string>();
      const record = (changes: { action: string; path: string }[]) => {
        for (const change of changes)
          if (change.action === 'create' || change.action === 'update') touched.add(change.path);
      };
      const context = () => testContext({ cwd: dir, now: GOLDEN_NOW });
      record(
        (
          await runCreateApiWithPlugins(
            {
              group: 'example.com',
              version: 'v1alpha1',
              kind: 'Memcached',
              image: 'memcached:1.6.26-alpine3.19',
              imageContainerCommand: 'memcached,--memory-limit=64,-o,modern,-v',
              imageContainerPort: '11211',
              runAsUser: '1001',
              plugins: ['deploy-image/v1-alpha'],
            },
            context(),
          )
        ).changes,
      );
      record(
        (
          await runCreateApiWithPlugins(
            {
              group: 'example.com',
              version: 'v1alpha1',
              kind: 'Busybox',
              image: 'busybox:1.36.1',
              plugins: ['deploy-image/v1-alpha'],
            },
            context(),
          )
        ).changes,
      );
      record((await runEdit({ plugins: ['grafana.kubebuilder.io/v1-alpha'] }, context())).changes);
      await expectGoldenFiles(dir, [...touched].sort(), GOLDEN);
    } finally {
      await cleanup();
    }
  });
});
