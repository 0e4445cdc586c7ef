import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compareTrees, listFiles, pageProblems } from './run-tutorials.mjs';
import { TUTORIAL_NAMES } from './tutorials.mjs';

// The parts of the tutorials' runner that decide pass or fail without running kop: the comparison
// with the committed project and the page checks. tutorials.e2e.test.ts runs the whole.
describe('the tutorials runner', () => {
  const made: string[] = [];
  afterEach(async () => {
    for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function tree(files: Record<string, string>): Promise<string> {
    const root = await mkdtemp(path.join(tmpdir(), 'kop-tutorials-unit-'));
    made.push(root);
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), content);
    }
    return root;
  }

  it('leaves out node_modules, dist and .kop at the root only', async () => {
    const root = await tree({
      'src/main.ts': '',
      'node_modules/x/index.js': '',
      'dist/install.yaml': '',
      '.kop/kop-0.1.0.tgz': '',
      'src/dist/kept.ts': '',
    });
    expect(await listFiles(root)).toEqual(['src/dist/kept.ts', 'src/main.ts']);
  });

  it('names every file only on one side and the first line that differs', async () => {
    const actual = await tree({ 'a.ts': 'one\ntwo\n', 'new.ts': '', 'same.ts': 'x' });
    const expected = await tree({ 'a.ts': 'one\nTWO\n', 'gone.ts': '', 'same.ts': 'x' });
    expect(await compareTrees(actual, expected)).toEqual([
      'only in the new project: new.ts',
      'only in the committed project: gone.ts',
      'differs: a.ts at line 2\n         new:       "two"\n         committed: "TWO"',
    ]);
    expect(await compareTrees(actual, actual)).toEqual([]);
  });

  it('finds a command missing when the page only mentions it in prose', async () => {
    const problems = await pageProblems('cronjob', (page) => page.replace(/^kop generate$/gm, 'kop generat'));
    expect(problems).toEqual(['does not show the command in a sh block: kop generate']);
  });

  it.each(TUTORIAL_NAMES.map((name) => [name]))(
    'finds the %s page showing every command and including only regions the project marks',
    async (name) => {
      expect(await pageProblems(name)).toEqual([]);
    },
  );
});
