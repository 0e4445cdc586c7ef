/**
 * Bad input through the built CLI, as a table: each case runs one kop command in a scaffolded
 * project under git and checks the exit code, the message, and that nothing was written
 * (`git status` is the same before and after). Between cases the project is reset to its commit.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KOP_BIN, requireBuilt } from '../helpers/cli-project.js';

const TYPES = 'api/cache/v1alpha1/memcached.types.ts';

interface BadInputCase {
  name: string;
  /** Changes made before the command (they are in git status before and after). */
  given?: (project: string, outside: string) => Promise<void>;
  /** Where to run, relative to the project; the project itself by default. */
  cwd?: string;
  args: string[];
  exitCode: number;
  message: RegExp;
}

const editTypes =
  (edit: (text: string) => string) =>
  async (project: string): Promise<void> => {
    const file = path.join(project, TYPES);
    await writeFile(file, edit(await readFile(file, 'utf8')));
  };

const CASES: BadInputCase[] = [
  {
    name: 'init: invalid project name',
    given: (project) => mkdir(path.join(project, 'fresh')),
    cwd: 'fresh',
    args: ['init', '--project-name', 'Bad_Name'],
    exitCode: 2,
    message: /DNS-1123 label/,
  },
  {
    name: 'init: a kop project already here, without --force',
    args: ['init', '--domain', 'example.com'],
    exitCode: 1,
    message: /already has a PROJECT/,
  },
  {
    name: 'init --force: a domain that contradicts PROJECT',
    args: ['init', '--force', '--domain', 'other.example', '--skip-install'],
    exitCode: 2,
    message: /contradicts PROJECT/,
  },
  {
    name: 'create api: lower-case kind',
    args: ['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'memcached'],
    exitCode: 2,
    message: /UpperCamelCase/,
  },
  {
    name: 'create api: kind the scaffold uses (Request)',
    args: ['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Request'],
    exitCode: 2,
    message: /already uses the name Request/,
  },
  {
    name: 'create api: kind whose plural is over 63 characters',
    args: ['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', `A${'b'.repeat(62)}`],
    exitCode: 2,
    message: /64 characters/,
  },
  {
    name: 'create api: CRD name over 253 characters',
    args: [
      'create',
      'api',
      '--group',
      Array.from({ length: 4 }, () => 'g'.repeat(60)).join('.'),
      '--version',
      'v1',
      '--kind',
      'Widget',
    ],
    exitCode: 2,
    message: /at most 253/,
  },
  {
    name: 'create api: a CRD file name over 255 characters (CRD name of 253)',
    args: [
      'create',
      'api',
      '--group',
      ['a'.repeat(60), 'b'.repeat(60), 'c'.repeat(55)].join('.'),
      '--version',
      'v1',
      '--kind',
      `A${'b'.repeat(61)}`,
    ],
    exitCode: 2,
    message: /would have a name of 258 characters; file names are limited to 255/,
  },
  {
    name: 'create api: invalid version',
    args: ['create', 'api', '--group', 'cache', '--version', 'V1', '--kind', 'Widget'],
    exitCode: 2,
    message: /invalid version/,
  },
  {
    name: 'create api: an existing kind without --force',
    args: ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'],
    exitCode: 1,
    message: /already exists in PROJECT/,
  },
  {
    name: 'create webhook: a kind not in PROJECT',
    args: ['create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Nope', '--defaulting'],
    exitCode: 1,
    message: /Nope cache\.example\.com\/v1alpha1 is not in PROJECT/,
  },
  {
    name: 'create webhook: no webhook kind and no terminal',
    args: ['create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'],
    exitCode: 2,
    message: /no webhook to create/,
  },
  {
    name: 'create webhook: --conversion for a kind of one version',
    args: [
      'create',
      'webhook',
      '--group',
      'cache',
      '--version',
      'v1alpha1',
      '--kind',
      'Memcached',
      '--conversion',
      '--spoke',
      'v1',
    ],
    exitCode: 1,
    message: /has only the version v1alpha1/,
  },
  {
    name: 'create webhook: a --defaulting-path that is no URL path',
    args: [
      'create',
      'webhook',
      '--group',
      'cache',
      '--version',
      'v1alpha1',
      '--kind',
      'Memcached',
      '--defaulting',
      '--defaulting-path=mutate me',
    ],
    exitCode: 2,
    message: /--defaulting-path[^]*invalid webhook path "mutate me": it must start with "\/"/,
  },
  {
    name: 'create webhook: a built-in kind kop has no descriptor for',
    args: ['create', 'webhook', '--group', 'core', '--version', 'v1', '--kind', 'Endpoints', '--defaulting'],
    exitCode: 1,
    message: /no built-in kind kop\/runtime has a descriptor for/,
  },
  {
    name: 'an unknown command with --help',
    args: ['frobnicate', '--help'],
    exitCode: 1,
    message: /^error: unknown command 'frobnicate'/,
  },
  {
    name: 'a misspelt command',
    args: ['create', 'webhok', '--group', 'cache'],
    exitCode: 1,
    message: /unknown command 'webhok'[^]*Did you mean webhook\?/,
  },
  {
    name: 'generate: a syntax error in the API types',
    given: editTypes((t) => t.replace('foo?: string;', 'foo?: string;;')),
    args: ['generate'],
    exitCode: 1,
    message: /do not parse[\s\S]*memcached\.types\.ts:\d+:\d+/,
  },
  {
    name: 'generate: a misspelt marker',
    given: editTypes((t) =>
      t.replace('  foo?: string;', '  /** +kubebuilder:validation:MaxLenght=5 */\n  foo?: string;'),
    ),
    args: ['generate'],
    exitCode: 1,
    message: /did you mean \+kubebuilder:validation:MaxLength\?/,
  },
  {
    name: 'generate: a Pattern the apiserver cannot compile',
    // A function replacement: in a replacement string, $` would mean "the text before the match".
    given: editTypes((t) =>
      t.replace('  foo?: string;', () => '  /** +kubebuilder:validation:Pattern=`^(?!x).*$` */\n  foo?: string;'),
    ),
    args: ['generate'],
    exitCode: 1,
    message: /cannot compile this pattern: \(\?! is a lookahead/,
  },
  {
    name: 'generate: several problems, all reported',
    given: editTypes((t) => t.replace('  foo?: string;', '  foo?: number;\n  bar?: any;')),
    args: ['generate'],
    exitCode: 1,
    message: /2 problems in the API types:\n.*"foo".*\n.*"bar"/,
  },
  {
    name: 'generate: config/crd/bases linked outside the project',
    given: async (project, outside) => {
      await rm(path.join(project, 'config/crd/bases'), { recursive: true, force: true });
      await symlink(outside, path.join(project, 'config/crd/bases'));
    },
    args: ['generate'],
    exitCode: 1,
    message: /outside the project \(through a symbolic link\)/,
  },
];

describe('bad input through the CLI writes nothing', () => {
  let parent: string;
  let project: string;
  let outside: string;
  const git = (args: string[]) =>
    execa('git', ['-c', 'user.email=test@example.com', '-c', 'user.name=test', ...args], { cwd: project });
  const status = async () => (await git(['status', '--porcelain', '--untracked-files=all'])).stdout;

  beforeAll(async () => {
    requireBuilt();
    parent = await mkdtemp(path.join(tmpdir(), 'kop-bad-input-'));
    project = path.join(parent, 'demo');
    outside = path.join(parent, 'other-project-crds');
    await mkdir(project);
    await mkdir(outside);
    await writeFile(
      path.join(outside, 'other_crd.yaml'),
      '# Code generated by kop. DO NOT EDIT.\nkind: CustomResourceDefinition\n',
    );
    const run = (args: string[]) =>
      execa('node', [KOP_BIN, ...args], { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
    expect(
      (await run(['init', '--domain', 'example.com', '--project-name', 'demo', '--skip-install', '--yes'])).exitCode,
    ).toBe(0);
    expect(
      (await run(['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--yes']))
        .exitCode,
    ).toBe(0);
    expect((await run(['generate'])).exitCode).toBe(0);
    await git(['init', '-q']);
    await git(['add', '-A']);
    await git(['commit', '-q', '-m', 'scaffold']);
  }, 120_000);

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  for (const c of CASES) {
    it(c.name, async () => {
      await git(['checkout', '-q', '--', '.']);
      await git(['clean', '-qfdx']);
      await rm(path.join(project, 'config/crd/bases'), { force: true }).catch(() => undefined);
      await git(['checkout', '-q', '--', '.']);
      await c.given?.(project, outside);
      const before = await status();
      const result = await execa('node', [KOP_BIN, ...c.args], {
        cwd: path.join(project, c.cwd ?? '.'),
        reject: false,
        env: { NO_COLOR: '1', CI: 'true' },
        stdin: 'ignore',
      });
      expect({ exitCode: result.exitCode, stderr: result.stderr }).toMatchObject({ exitCode: c.exitCode });
      expect(result.stderr).toMatch(c.message);
      expect(result.stderr).not.toMatch(/\n\s+at /); // a clear message, not a stack
      expect(await status()).toBe(before);
      if (c.cwd) expect(await readdir(path.join(project, c.cwd))).toEqual([]);
      expect(await readFile(path.join(outside, 'other_crd.yaml'), 'utf8')).toContain('CustomResourceDefinition');
    });
  }
});
