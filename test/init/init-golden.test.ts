import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kopPackageRoot, kopVersion } from '../../src/base/paths.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { fakeNpmPack } from '../helpers/fake-npm-pack.js';
import { listFiles } from '../helpers/files.js';
import { expectGoldenFiles, GOLDEN_INIT_OPTIONS, GOLDEN_NOW, UPDATE_GOLDEN } from '../helpers/golden.js';

/**
 * test/golden/init is the project `kop init` generates for fixed inputs: a fixed
 * project name, domain, owner and clock, and kop packed into the project as it is by default
 * (`npm pack` faked: the tarball's bytes are not part of the golden), so it holds no machine
 * paths or dates. Regenerate with KOP_UPDATE_GOLDEN=1 and review the diff.
 */
const GOLDEN = fileURLToPath(new URL('../golden/init', import.meta.url));

describe('kop init golden project', () => {
  it(`matches test/golden/init${UPDATE_GOLDEN ? ' (updating)' : ''}`, async () => {
    const { dir, cleanup } = await tempDir('demo');
    try {
      await runInit(
        { ...GOLDEN_INIT_OPTIONS, kopSource: undefined },
        testContext({ cwd: dir, now: GOLDEN_NOW, exec: fakeNpmPack(kopVersion()).exec }),
      );
      const all = await listFiles(dir);
      expect(all).toContain(`.kop/kop-${kopVersion()}.tgz`);
      const generated = all.filter((file) => !file.startsWith('.kop/'));
      await expectGoldenFiles(dir, generated, GOLDEN);
      for (const file of generated) {
        const content = await readFile(path.join(dir, file), 'utf8');
        expect(content, `${file} holds a machine path`).not.toContain(kopPackageRoot());
        expect(content, `${file} holds a machine path`).not.toContain(dir);
      }
    } finally {
      await cleanup();
    }
  });
});
