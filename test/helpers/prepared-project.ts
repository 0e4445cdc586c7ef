import { cpSync } from 'node:fs';
import { afterAll } from 'vitest';
import { tempDir } from './fake-context.js';

/**
 * A project that the tests of one describe block all start from, built once and copied for each test.
 * Scaffolding in-process (init, create api, generate) takes most of a second; a copy takes a few
 * milliseconds, so a block of many small cases no longer pays the scaffold once per case. Each test
 * still gets a fresh folder of its own (same folder name, so nothing that depends on it changes), and
 * the copy is byte for byte what `build` wrote, so a broken scaffold still fails every test that reads it.
 * Call it in a describe block: it removes the prepared copy after the block.
 */
export function preparedProject(
  name: string,
  build: (dir: string) => Promise<void>,
): () => Promise<{ dir: string; cleanup: () => Promise<void> }> {
  let prepared: Promise<{ dir: string; cleanup: () => Promise<void> }> | undefined;
  afterAll(async () => {
    if (prepared) await (await prepared.catch(() => undefined))?.cleanup();
  });
  return async () => {
    prepared ??= (async () => {
      const made = await tempDir(name);
      await build(made.dir);
      return made;
    })();
    const { dir: template } = await prepared;
    const fresh = await tempDir(name);
    // Synchronous: the async copy hands each of its few hundred stat, mkdir, copy and chmod calls to
    // libuv's thread pool and back, which costs more than the copying itself.
    cpSync(template, fresh.dir, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    return fresh;
  };
}
