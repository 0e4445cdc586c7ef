import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileExistsError, KopError } from '../../src/base/errors.js';
import { VirtualTree } from '../../src/scaffold/tree.js';
import { tempDir } from './helpers/fake-context.js';

describe('VirtualTree', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    await mkdir(path.join(dir, 'src'));
    await writeFile(path.join(dir, 'src/same.ts'), 'same\n');
    await writeFile(path.join(dir, 'src/old.ts'), 'old\n');
  });
  afterEach(() => cleanup());

  it('plans create, update, unchanged and skip, sorted by path, without touching the disk', async () => {
    const tree = new VirtualTree(dir);
    tree.write('src/new.ts', 'new\n');
    tree.write('src/old.ts', 'changed\n');
    tree.write('src/same.ts', 'same\n');
    await tree.scaffold('src/same.ts', 'other\n', { ifExists: 'skip' });
    expect(await tree.plan()).toEqual([
      { path: 'src/new.ts', action: 'create', kind: 'generated', reason: undefined },
      { path: 'src/old.ts', action: 'update', kind: 'generated', reason: undefined },
      { path: 'src/same.ts', action: 'unchanged', kind: 'generated', reason: undefined },
    ]);
    await expect(readFile(path.join(dir, 'src/new.ts'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('reads staged content before disk content', async () => {
    const tree = new VirtualTree(dir);
    expect(await tree.read('src/old.ts')).toBe('old\n');
    tree.write('src/old.ts', 'staged\n');
    expect(await tree.read('src/old.ts')).toBe('staged\n');
    expect(await tree.exists('src/missing.ts')).toBe(false);
  });

  const scaffoldCases = [
    { name: 'new file', given: { file: 'src/x.ts', options: {} }, want: 'create' },
    { name: 'existing file, skip', given: { file: 'src/old.ts', options: { ifExists: 'skip' as const } }, want: 'skip' },
    { name: 'existing file, force', given: { file: 'src/old.ts', options: { force: true } }, want: 'update' },
    { name: 'existing file, default is an error', given: { file: 'src/old.ts', options: {} }, want: FileExistsError },
  ];
  for (const { name, given, want } of scaffoldCases) {
    it(`scaffold: ${name}`, async () => {
      const tree = new VirtualTree(dir);
      const run = tree.scaffold(given.file, 'scaffolded\n', given.options);
      if (typeof want !== 'string') return void (await expect(run).rejects.toBeInstanceOf(want));
      await run;
      expect((await tree.plan()).map((change) => change.action)).toEqual([want]);
    });
  }

  it('flushes creates and updates, leaves skipped files alone, and is idempotent', async () => {
    const tree = new VirtualTree(dir);
    tree.write('deep/nested/file.yaml', 'a: 1\n');
    tree.write('src/old.ts', 'changed\n');
    await tree.scaffold('src/same.ts', 'other\n', { ifExists: 'skip' });
    await tree.flush();
    expect(await readFile(path.join(dir, 'deep/nested/file.yaml'), 'utf8')).toBe('a: 1\n');
    expect(await readFile(path.join(dir, 'src/old.ts'), 'utf8')).toBe('changed\n');
    expect(await readFile(path.join(dir, 'src/same.ts'), 'utf8')).toBe('same\n');

    const again = new VirtualTree(dir);
    again.write('deep/nested/file.yaml', 'a: 1\n');
    expect((await again.plan()).map((change) => change.action)).toEqual(['unchanged']);
  });

  it('plans a removed file as delete (unchanged when it is not on disk), reads it as gone, and deletes it on flush', async () => {
    const tree = new VirtualTree(dir);
    tree.remove('src/old.ts');
    tree.remove('src/never.ts');
    expect(await tree.plan()).toEqual([
      { path: 'src/never.ts', action: 'unchanged', kind: 'generated', reason: undefined },
      { path: 'src/old.ts', action: 'delete', kind: 'generated', reason: undefined },
    ]);
    expect(await tree.read('src/old.ts')).toBeUndefined();
    expect(await readFile(path.join(dir, 'src/old.ts'), 'utf8')).toBe('old\n');
    await tree.flush();
    await expect(readFile(path.join(dir, 'src/old.ts'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect((await tree.plan()).map((change) => change.action)).toEqual(['unchanged', 'unchanged']);
  });

  it('refuses paths outside the root', () => {
    const tree = new VirtualTree(dir);
    for (const bad of ['../x', '/etc/passwd', 'a/../../x', '']) {
      expect(() => tree.write(bad, 'x')).toThrow(KopError);
    }
  });

  it('updates an existing file through an edit function and fails for a missing one', async () => {
    const tree = new VirtualTree(dir);
    await tree.update('src/old.ts', (content) => content + 'more\n');
    expect(await tree.read('src/old.ts')).toBe('old\nmore\n');
    await expect(tree.update('src/none.ts', (c) => c)).rejects.toThrow(/does not exist/);
  });
});
