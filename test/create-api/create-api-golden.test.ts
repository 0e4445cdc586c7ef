import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { expectGoldenFiles, GOLDEN_INIT_OPTIONS, GOLDEN_NOW, UPDATE_GOLDEN } from '../helpers/golden.js';

/**
 * test/golden/create-api holds every file `kop create api` creates or updates in a
 * project made by `kop init` with fixed inputs, after adding Memcached and RedisCluster
 * to cache/v1alpha1. Regenerate with KOP_UPDATE_GOLDEN=1 and review the diff.
 */
const GOLDEN = fileURLToPath(new URL('../golden/create-api', import.meta.url));

describe('kop create api golden files', () => {
  it(`match test/golden/create-api${UPDATE_GOLDEN ? ' (updating)' : ''}`, async () => {
    const { dir, cleanup } = await tempDir('demo');
    try {
      await runInit(GOLDEN_INIT_OPTIONS, testContext({ cwd: dir, now: GOLDEN_NOW }));
      const touched = new Set<string>();
      for (const kind of ['Memcached', 'RedisCluster']) {
        const result = await runCreateApi(
          { group: 'cache', version: 'v1alpha1', kind },
          testContext({ cwd: dir, now: GOLDEN_NOW }),
        );
        for (const change of result.changes)
          if (change.action === 'create' || change.action === 'update') touched.add(change.path);
      }
      await expectGoldenFiles(dir, [...touched].sort(), GOLDEN);
    } finally {
      await cleanup();
    }
  });
});
