import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from './helpers/fake-context.js';

/**
 * test/golden/create-api holds every file `kop create api` creates or updates in a
 * project made by `kop init` with fixed inputs, after adding Memcached and RedisCluster
 * to cache/v1alpha1. Regenerate with KOP_UPDATE_GOLDEN=1 and review the diff.
 */
const GOLDEN = fileURLToPath(new URL('../golden/create-api', import.meta.url));
const UPDATE = process.env.KOP_UPDATE_GOLDEN === '1';

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(dir, relative)));
    else out.push(relative);
  }
  return out.sort();
}

describe('kop create api golden files', () => {
  it(`match test/golden/create-api${UPDATE ? ' (updating)' : ''}`, async () => {
    const { dir, cleanup } = await tempDir('demo');
    try {
      const now = new Date('2026-01-02T03:04:05Z');
      await runInit(
        { projectName: 'demo', domain: 'example.com', owner: 'The demo authors', license: 'apache2', kopSource: 'file:../kop', skipInstall: true },
        testContext({ cwd: dir, now }),
      );
      const touched = new Set<string>();
      for (const kind of ['Memcached', 'RedisCluster']) {
        const result = await runCreateApi({ group: 'cache', version: 'v1alpha1', kind }, testContext({ cwd: dir, now }));
        for (const change of result.changes) if (change.action === 'create' || change.action === 'update') touched.add(change.path);
      }
      const files = [...touched].sort();
      if (UPDATE) {
        await rm(GOLDEN, { recursive: true, force: true });
        for (const file of files) {
          await mkdir(path.dirname(path.join(GOLDEN, file)), { recursive: true });
          await writeFile(path.join(GOLDEN, file), await readFile(path.join(dir, file), 'utf8'));
        }
      }
      expect(files, 'file list differs; run with KOP_UPDATE_GOLDEN=1 to update').toEqual(await listFiles(GOLDEN));
      for (const file of files) {
        const want = await readFile(path.join(GOLDEN, file), 'utf8');
        expect(await readFile(path.join(dir, file), 'utf8'), `${file} differs; run with KOP_UPDATE_GOLDEN=1 to update`).toBe(want);
      }
    } finally {
      await cleanup();
    }
  });
});
