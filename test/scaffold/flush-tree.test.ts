import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KopError } from '../../src/base/errors.js';
import { flushTree, type PostFlushTask } from '../../src/scaffold/flush-tree.js';
import { VirtualTree } from '../../src/scaffold/tree.js';
import { tempDir, testContext } from '../helpers/fake-context.js';

describe('flushTree', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    await writeFile(path.join(dir, 'same.txt'), 'same\n');
    await writeFile(path.join(dir, 'old.txt'), 'old\n');
    await writeFile(path.join(dir, 'mine.txt'), 'mine\n');
  });
  afterEach(() => cleanup());

  async function stage(tree: VirtualTree): Promise<void> {
    tree.write('new.txt', 'new\n');
    tree.write('old.txt', 'changed\n');
    tree.write('same.txt', 'same\n');
    await tree.scaffold('mine.txt', 'theirs\n', { ifExists: 'skip' });
  }

  it('prints CREATE/UPDATE/SKIP (not unchanged files), writes, then runs tasks in order', async () => {
    const context = testContext({ cwd: dir });
    const ran: string[] = [];
    const task = (title: string): PostFlushTask => ({ title, run: async () => void ran.push(title) });
    const tree = new VirtualTree(dir);
    await stage(tree);
    const result = await flushTree(tree, context, { tasks: [task('first'), task('second')] });
    expect(result.written).toBe(true);
    expect(context.out.lines).toEqual([
      'SKIP   mine.txt (exists)',
      'CREATE new.txt',
      'UPDATE old.txt',
      'RUN    first ...',
      expect.stringMatching(/^DONE {3}first \(\d+\.\ds\)$/),
      'RUN    second ...',
      expect.stringMatching(/^DONE {3}second/),
    ]);
    expect(ran).toEqual(['first', 'second']);
    expect(await readFile(path.join(dir, 'new.txt'), 'utf8')).toBe('new\n');
    expect(await readFile(path.join(dir, 'mine.txt'), 'utf8')).toBe('mine\n');
  });

  it('on --dry-run prints the plan and the tasks it would run, and writes nothing', async () => {
    const context = testContext({ cwd: dir, dryRun: true });
    const tree = new VirtualTree(dir);
    await stage(tree);
    const result = await flushTree(tree, context, {
      tasks: [{ title: 'npm install', run: () => Promise.reject(new Error('ran')) }],
    });
    expect(result.written).toBe(false);
    expect(context.out.lines.slice(-2)).toEqual(['would run: npm install', 'dry run: nothing was written']);
    await expect(readFile(path.join(dir, 'new.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(await readFile(path.join(dir, 'old.txt'), 'utf8')).toBe('old\n');
  });

  it('prints "no changes" when everything is already up to date', async () => {
    const context = testContext({ cwd: dir });
    const tree = new VirtualTree(dir);
    tree.write('same.txt', 'same\n');
    await flushTree(tree, context);
    expect(context.out.lines).toEqual(['no changes']);
  });

  it('turns a failed task into a KopError that says the files were written', async () => {
    const context = testContext({ cwd: dir });
    const tree = new VirtualTree(dir);
    tree.write('new.txt', 'new\n');
    const failing: PostFlushTask = {
      title: 'npm install',
      run: () => Promise.reject(new Error('exit 1')),
      hint: 'run npm install yourself',
    };
    await expect(flushTree(tree, context, { tasks: [failing] })).rejects.toThrow(KopError);
    await expect(flushTree(tree, context, { tasks: [failing] })).rejects.toMatchObject({
      message: 'npm install failed: exit 1',
      hint: 'run npm install yourself',
    });
    expect(await readFile(path.join(dir, 'new.txt'), 'utf8')).toBe('new\n');
  });

  it('prints paths relative to where kop runs', async () => {
    const context = testContext({ cwd: path.dirname(dir) });
    const tree = new VirtualTree(dir);
    tree.write('sub/file.txt', 'x\n');
    await flushTree(tree, context);
    expect(context.out.lines).toEqual([`CREATE ${path.basename(dir)}/sub/file.txt`]);
  });
});
