import { cp, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kopPackageRoot } from '../../src/cli/paths.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from './helpers/fake-context.js';

/**
 * test/golden/init is the project `kop init` generates for fixed inputs: a fixed
 * project name, domain, owner, clock and `--kop-source file:../kop`, so it holds no
 * machine paths or dates. Regenerate with KOP_UPDATE_GOLDEN=1 and review the diff.
 */
const GOLDEN = fileURLToPath(new URL('../golden/init', import.meta.url));
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

describe('kop init golden project', () => {
  it(`matches test/golden/init${UPDATE ? ' (updating)' : ''}`, async () => {
    const { dir, cleanup } = await tempDir('demo');
    try {
      const context = testContext({ cwd: dir, now: new Date('2026-01-02T03:04:05Z') });
      await runInit(
        { projectName: 'demo', domain: 'example.com', owner: 'The demo authors', license: 'apache2', kopSource: 'file:../kop', skipInstall: true },
        context,
      );
      if (UPDATE) {
        await rm(GOLDEN, { recursive: true, force: true });
        await mkdir(path.dirname(GOLDEN), { recursive: true });
        await cp(dir, GOLDEN, { recursive: true });
      }
      const generated = await listFiles(dir);
      expect(generated, 'file list differs; run with KOP_UPDATE_GOLDEN=1 to update').toEqual(await listFiles(GOLDEN));
      for (const file of generated) {
        const want = await readFile(path.join(GOLDEN, file), 'utf8');
        expect(await readFile(path.join(dir, file), 'utf8'), `${file} differs; run with KOP_UPDATE_GOLDEN=1 to update`).toBe(want);
      }
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
