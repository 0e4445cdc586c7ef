import { existsSync } from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileExistsError, KopError } from '../../src/base/errors.js';
import { VirtualTree, type FlushFileSystem } from '../../src/scaffold/tree.js';
import { tempDir } from '../helpers/fake-context.js';

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

  it('writes binary files byte for byte: create, then unchanged for the same bytes, update for others; never read as text', async () => {
    // Every byte value, including ones that are not valid UTF-8 on their own (a gzip header starts 1f 8b).
    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    const tree = new VirtualTree(dir);
    tree.writeBinary('.kop/kop-1.0.0.tgz', bytes);
    expect(await tree.exists('.kop/kop-1.0.0.tgz')).toBe(true);
    await expect(tree.read('.kop/kop-1.0.0.tgz')).rejects.toThrow(
      /cannot read \.kop\/kop-1\.0\.0\.tgz as text: it is a binary file/,
    );
    expect((await tree.plan()).map((change) => change.action)).toEqual(['create']);
    await tree.flush();
    expect(new Uint8Array(await readFile(path.join(dir, '.kop/kop-1.0.0.tgz')))).toEqual(bytes);

    const again = new VirtualTree(dir);
    again.writeBinary('.kop/kop-1.0.0.tgz', Uint8Array.from(bytes));
    expect((await again.plan()).map((change) => change.action)).toEqual(['unchanged']);
    const changed = Uint8Array.from(bytes);
    changed[200] = 0;
    again.writeBinary('.kop/kop-1.0.0.tgz', changed);
    expect((await again.plan()).map((change) => change.action)).toEqual(['update']);
    await again.flush();
    expect(new Uint8Array(await readFile(path.join(dir, '.kop/kop-1.0.0.tgz')))).toEqual(changed);
    again.writeBinary('.kop/kop-1.0.0.tgz', changed);
    expect((await again.plan()).map((change) => change.action)).toEqual(['unchanged']);
  });

  const scaffoldCases = [
    { name: 'new file', given: { file: 'src/x.ts', options: {} }, want: 'create' },
    {
      name: 'existing file, skip',
      given: { file: 'src/old.ts', options: { ifExists: 'skip' as const } },
      want: 'skip',
    },
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

describe('VirtualTree.flush is all or nothing', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    await mkdir(path.join(dir, 'config'));
    await writeFile(path.join(dir, 'PROJECT'), 'old project\n');
    await writeFile(path.join(dir, 'config/kept.yaml'), 'kept\n', { mode: 0o640 });
    await writeFile(path.join(dir, 'config/gone.yaml'), 'gone\n');
  });
  afterEach(() => cleanup());

  /** Every file under `dir` with its content, temporary files included. */
  async function snapshot(): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    const walk = async (at: string): Promise<void> => {
      for (const entry of await readdir(at, { withFileTypes: true })) {
        const full = path.join(at, entry.name);
        if (entry.isDirectory()) await walk(full);
        else files[path.relative(dir, full)] = await readFile(full, 'utf8');
      }
    };
    await walk(dir);
    return files;
  }

  function staged(fileSystem?: FlushFileSystem): VirtualTree {
    const tree = new VirtualTree(dir, fileSystem);
    tree.write('PROJECT', 'new project\n');
    tree.write('config/kept.yaml', 'changed\n');
    tree.write('config/deep/new.yaml', 'new\n');
    tree.write('src/new.ts', 'new\n');
    tree.remove('config/gone.yaml');
    return tree;
  }

  it("writes PROJECT last, and keeps an updated file's mode", async () => {
    const renamed: string[] = [];
    const recording: FlushFileSystem = {
      ...fsPromises,
      rename: async (from, to) => void (renamed.push(path.relative(dir, to)), await fsPromises.rename(from, to)),
    };
    await staged(recording).flush();
    expect(renamed.filter((file) => !file.includes('.kop-')).at(-1)).toBe('PROJECT');
    expect(await snapshot()).toEqual({
      PROJECT: 'new project\n',
      'config/kept.yaml': 'changed\n',
      'config/deep/new.yaml': 'new\n',
      'src/new.ts': 'new\n',
    });
    expect((await stat(path.join(dir, 'config/kept.yaml'))).mode & 0o777).toBe(0o640);
  });

  it('writes, updates and deletes files whose names have the full 255 characters', async () => {
    const long = `config/${'x'.repeat(250)}.yaml`;
    const tree = new VirtualTree(dir);
    tree.write(long, 'first\n');
    await tree.flush();
    expect(await readFile(path.join(dir, long), 'utf8')).toBe('first\n');
    const again = new VirtualTree(dir);
    again.write(long, 'second\n');
    await again.flush();
    expect(await readFile(path.join(dir, long), 'utf8')).toBe('second\n');
    const removing = new VirtualTree(dir);
    removing.remove(long);
    await removing.flush();
    expect(existsSync(path.join(dir, long))).toBe(false);
  });

  for (const failAt of [1, 2, 3, 4, 5, 6]) {
    it(`restores the project when the rename number ${failAt} fails`, async () => {
      const before = await snapshot();
      let renames = 0;
      const failing: FlushFileSystem = {
        ...fsPromises,
        rename: async (from, to) => {
          if (++renames === failAt) throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
          await fsPromises.rename(from, to);
        },
      };
      await expect(staged(failing).flush()).rejects.toThrow(/disk full/);
      expect(await snapshot()).toEqual(before);
      expect(existsSync(path.join(dir, 'src'))).toBe(false);
      expect(existsSync(path.join(dir, 'config/deep'))).toBe(false);
      // And a retry then succeeds as if nothing had happened.
      await staged().flush();
      expect((await snapshot()).PROJECT).toBe('new project\n');
    });
  }

  it('refuses to write or delete through a symbolic link that leaves the project, already in the plan', async () => {
    const { dir: elsewhere, cleanup: cleanElsewhere } = await tempDir();
    try {
      await writeFile(path.join(elsewhere, 'other_crd.yaml'), '# Code generated by kop. DO NOT EDIT.\n');
      await symlink(elsewhere, path.join(dir, 'config/bases'));
      const deleting = new VirtualTree(dir);
      deleting.remove('config/bases/other_crd.yaml');
      await expect(deleting.plan()).rejects.toThrow(/outside the project \(through a symbolic link\)/);
      const writing = new VirtualTree(dir);
      writing.write('config/bases/new/crd.yaml', 'x\n');
      await expect(writing.flush()).rejects.toBeInstanceOf(KopError);
      expect(await readdir(elsewhere)).toEqual(['other_crd.yaml']);
      // A link that stays inside the project is fine.
      await symlink(path.join(dir, 'config'), path.join(dir, 'linked'));
      const inside = new VirtualTree(dir);
      inside.write('linked/ok.yaml', 'ok\n');
      await inside.flush();
      expect(await readFile(path.join(dir, 'config/ok.yaml'), 'utf8')).toBe('ok\n');
    } finally {
      await cleanElsewhere();
    }
  });
});
