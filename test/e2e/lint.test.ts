import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * The lint, format and e2e setup `kop init` scaffolds, run as its CI workflows run it: `npm run lint`
 * (ESLint with typescript-eslint's type-checked rules) and `npm run format:check` (Prettier) pass on
 * the bare scaffold and again after `create api` (two versions), `create webhook` (defaulting,
 * validation, conversion) and `kop generate`; the files kop generates are outside both; the
 * linter refuses an unawaited promise; and `npm run test:e2e` (the e2e workflow's job: the built
 * manager against an embedded control plane, samples applied through the webhooks) passes.
 * Needs `npm run build` and `kop setup-envtest` first.
 */
const TIMEOUT = 240_000;

describe('a generated project lints, formats and passes its e2e job', () => {
  let parent: string;
  let project: string;
  const run = (file: string, args: string[]) =>
    execa(file, args, { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
  const kop = (args: string[]) => run('node', [KOP_BIN, ...args]);
  const npmRun = (script: string) => run('npm', ['run', script]);

  async function expectLintAndFormatPass(when: string): Promise<void> {
    const lint = await npmRun('lint');
    expect(lint.exitCode, `npm run lint ${when}:\n${lint.stdout}${lint.stderr}`).toBe(0);
    const format = await npmRun('format:check');
    expect(format.exitCode, `npm run format:check ${when}:\n${format.stdout}${format.stderr}`).toBe(0);
  }

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/runtime/index.js', 'dist/testing/index.js']);
    ({ parent, project } = await initLinkedProject('demo', 'kop-e2e-lint-'));
  }, TIMEOUT);
  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'the bare scaffold passes lint and format check',
    async () => {
      await expectLintAndFormatPass('on the bare scaffold');
    },
    TIMEOUT,
  );

  it(
    'passes them after create api, create webhook and generate, with the generated files left out',
    async () => {
      for (const args of [
        ['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'RedisCluster', '--yes'],
        [
          'create',
          'api',
          '--group',
          'cache',
          '--version',
          'v1alpha1',
          '--kind',
          'RedisCluster',
          '--no-controller',
          '--yes',
        ],
        [
          'create',
          'webhook',
          '--group',
          'cache',
          '--version',
          'v1',
          '--kind',
          'RedisCluster',
          '--defaulting',
          '--programmatic-validation',
          '--conversion',
          '--spoke',
          'v1alpha1',
        ],
        ['generate'],
      ]) {
        const result = await kop(args);
        expect(result.exitCode, `kop ${args.join(' ')}:\n${result.stderr}`).toBe(0);
      }
      await expectLintAndFormatPass('after create api, create webhook and generate');

      // Every file kop generate wrote is one ESLint and Prettier skip (they are never edited).
      const generated = (parseYaml(await readFile(path.join(project, 'PROJECT'), 'utf8')) as { generated: string[] })
        .generated;
      const typescript = generated.filter((file) => file.endsWith('.ts'));
      expect(typescript).toEqual(['api/cache/v1/rediscluster.client.ts', 'api/cache/v1alpha1/rediscluster.client.ts']);
      // The project's own ESLint and Prettier, as npx would find them, without npx's npm.
      const eslint = await run(path.join(project, 'node_modules/.bin/eslint'), ['--max-warnings', '0', ...typescript]);
      expect(eslint.stdout + eslint.stderr).toMatch(/File ignored because of a matching ignore pattern/);
      const prettier = await run(path.join(project, 'node_modules/.bin/prettier'), ['--check', ...generated]);
      expect(prettier.exitCode, prettier.stdout + prettier.stderr).toBe(0);
      expect(prettier.stdout + prettier.stderr).not.toMatch(/Checking formatting[^]*\.ts/);
    },
    TIMEOUT,
  );

  it(
    'refuses a promise nobody awaits and an async callback where a plain one is expected',
    async () => {
      const bad = path.join(project, 'src/unawaited.ts');
      await writeFile(
        bad,
        [
          "import { EventEmitter } from 'node:events';",
          'async function write(): Promise<void> {}',
          'export function reconcile(): void {',
          '  write();',
          "  new EventEmitter().on('event', async () => write());",
          '}',
          '',
        ].join('\n'),
      );
      try {
        const lint = await npmRun('lint');
        expect(lint.exitCode).not.toBe(0);
        expect(lint.stdout).toMatch(/src\/unawaited\.ts[^]*@typescript-eslint\/no-floating-promises/);
        expect(lint.stdout).toMatch(/@typescript-eslint\/no-misused-promises/);
      } finally {
        await rm(bad);
      }
    },
    TIMEOUT,
  );

  it(
    'npm run test:e2e builds and runs the manager against a control plane, samples applied',
    async () => {
      // `npm run typecheck` is `tsc -p tsconfig.json --noEmit`: that command, in the run's one
      // TypeScript compiler (test/helpers/typecheck.ts) rather than an npm and a tsc process.
      const scripts = (
        JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as {
          scripts: Record<string, string>;
        }
      ).scripts;
      expect(scripts.typecheck).toBe('tsc -p tsconfig.json --noEmit');
      const typecheck = await tsc(['-p', 'tsconfig.json', '--noEmit'], project);
      expect(typecheck.exitCode, typecheck.stdout).toBe(0);
      const e2e = await npmRun('test:e2e');
      expect(e2e.exitCode, e2e.stdout + e2e.stderr).toBe(0);
      expect(e2e.stdout).toMatch(/manager\.e2e\.ts/);
      expect(e2e.stdout).toMatch(/Tests\s+3 passed/);
    },
    TIMEOUT,
  );
});
