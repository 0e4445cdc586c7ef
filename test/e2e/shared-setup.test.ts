import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KOP_ROOT, sharedPackEnv } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * What the e2e project's global setup shares (test/helpers/e2e-global-setup.ts) answers as the tool
 * it stands in for: the type-check service as tsc does (exit code and output, after edits too), and
 * the shared `npm pack` of kop as npm does, passing every other npm command through.
 */
const TSC = path.join(KOP_ROOT, 'node_modules/typescript/bin/tsc');
/** Ten type checks, two packs: minutes on a busy shared machine. */
const TIMEOUT = 300_000;

let parent: string;
beforeAll(async () => {
  parent = await mkdtemp(path.join(tmpdir(), 'kop-e2e-shared-setup-'));
});
afterAll(async () => {
  if (parent) await rm(parent, { recursive: true, force: true });
});

describe('the type-check service', () => {
  it('is there in the e2e project', () => {
    expect(inject('typecheckServer')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it(
    'answers as a tsc process does, in the same project before and after its files change',
    async () => {
      const project = path.join(parent, 'typed');
      await mkdir(path.join(project, 'src'), { recursive: true });
      await writeFile(
        path.join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: ['node'],
            typeRoots: [path.join(KOP_ROOT, 'node_modules/@types')],
            skipLibCheck: true,
            noEmit: true,
          },
          include: ['src'],
        }),
      );
      await writeFile(path.join(project, 'package.json'), '{ "type": "module" }\n');
      const own = async (args: string[]) => {
        const result = await execa(process.execPath, [TSC, ...args], { cwd: project, reject: false });
        return { exitCode: result.exitCode, stdout: result.stdout ? `${result.stdout}\n` : '' };
      };
      const source = path.join(project, 'src/main.ts');
      const cases: Array<{ text: string; args: string[]; fails: boolean }> = [
        // An implicit any is an error under --strict only.
        { text: "import { join } from 'node:path';\nexport const f = (x) => join(x, 'a');\n", args: [], fails: false },
        {
          text: "import { join } from 'node:path';\nexport const f = (x) => join(x, 'a');\n",
          args: ['--strict'],
          fails: true,
        },
        // The same file name, other content: a wrong type, then a syntax error, then good code.
        { text: "import { join } from 'node:path';\nexport const n: number = join('a');\n", args: [], fails: true },
        { text: 'export const = 1;\n', args: ['--strict'], fails: true },
        {
          text: "import { join } from 'node:path';\nexport const s: string = join('a');\n",
          args: ['--strict'],
          fails: false,
        },
      ];
      for (const { text, args, fails } of cases) {
        await writeFile(source, text);
        const argv = ['-p', 'tsconfig.json', ...args, '--noEmit'];
        const expected = await own(argv);
        expect(expected.exitCode !== 0, `${text}\n${expected.stdout}`).toBe(fails);
        expect(await tsc(argv, project)).toEqual(expected);
      }
    },
    TIMEOUT,
  );

  it('refuses what it does not do instead of ignoring it', async () => {
    await expect(tsc(['-p', 'tsconfig.json', '--noEmit', '--skipLibCheck'], parent)).rejects.toThrow(
      /tsc -p <project> \[--strict\] \[--noEmit\] only/,
    );
  });
});

describe('the shared npm pack of kop', () => {
  const npm = (args: string[], env: Record<string, string>) =>
    execa('npm', args, { cwd: parent, reject: false, env: { ...env, npm_config_update_notifier: 'false' } });

  it(
    'answers `npm pack <kop>` as npm does: the same report and the same bytes',
    async () => {
      const env = sharedPackEnv() as Record<string, string>;
      expect(env.PATH).toBeDefined();
      const shared = path.join(parent, 'shared');
      const real = path.join(parent, 'real');
      await mkdir(shared);
      await mkdir(real);
      const args = (dest: string) => [
        'pack',
        path.resolve(KOP_ROOT),
        '--pack-destination',
        dest,
        '--json',
        '--ignore-scripts',
      ];
      const fromShared = await npm(args(shared), env);
      const fromNpm = await npm(args(real), {});
      expect(fromShared.exitCode, fromShared.stderr).toBe(0);
      expect(fromNpm.exitCode, fromNpm.stderr).toBe(0);
      expect(JSON.parse(fromShared.stdout)).toEqual(JSON.parse(fromNpm.stdout));
      const [file] = await readdir(real);
      expect(await readdir(shared)).toEqual([file]);
      expect(await readFile(path.join(shared, file!))).toEqual(await readFile(path.join(real, file!)));
    },
    TIMEOUT,
  );

  it(
    'passes every other npm command to npm',
    async () => {
      const env = sharedPackEnv() as Record<string, string>;
      expect((await npm(['--version'], env)).stdout).toBe((await npm(['--version'], {})).stdout);
      // A pack of another folder is npm's too (here it fails as npm's does).
      const elsewhere = await npm(['pack', path.join(parent, 'nothing-here'), '--pack-destination', parent], env);
      expect(elsewhere.exitCode).not.toBe(0);
      expect(elsewhere.stderr).toMatch(/ENOENT|Could not read package\.json/);
    },
    TIMEOUT,
  );
});
