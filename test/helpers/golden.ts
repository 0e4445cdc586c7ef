import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { expect } from 'vitest';
import type { InitOptions } from '../../src/init/run-init.js';
import { listFiles } from './files.js';

/** KOP_UPDATE_GOLDEN=1 rewrites the golden folders instead of comparing with them. */
export const UPDATE_GOLDEN = process.env.KOP_UPDATE_GOLDEN === '1';

/** The fixed `kop init` inputs of the golden projects: no machine paths, no dates. */
export const GOLDEN_INIT_OPTIONS: InitOptions = {
  projectName: 'demo',
  domain: 'example.com',
  owner: 'The demo authors',
  license: 'apache2',
  kopSource: 'file:../kop',
  skipInstall: true,
};

/** The clock of the golden projects (it shows in license headers). */
export const GOLDEN_NOW = new Date('2026-01-02T03:04:05Z');

/**
 * Expects `golden` to hold exactly `files` (paths relative to `dir`) with the same content;
 * with KOP_UPDATE_GOLDEN=1 it first replaces `golden` with those files.
 */
export async function expectGoldenFiles(dir: string, files: readonly string[], golden: string): Promise<void> {
  if (UPDATE_GOLDEN) {
    await rm(golden, { recursive: true, force: true });
    for (const file of files) {
      await mkdir(path.dirname(path.join(golden, file)), { recursive: true });
      await copyFile(path.join(dir, file), path.join(golden, file));
    }
  }
  expect(files, 'file list differs; run with KOP_UPDATE_GOLDEN=1 to update').toEqual(await listFiles(golden));
  for (const file of files) {
    const want = await readFile(path.join(golden, file), 'utf8');
    expect(
      await readFile(path.join(dir, file), 'utf8'),
      `${file} differs; run with KOP_UPDATE_GOLDEN=1 to update`,
    ).toBe(want);
  }
}
