import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { main, formatError } from '../../src/cli/main.js';
import { KopError, UsageError } from '../../src/base/errors.js';
import { kopVersion } from '../../src/base/paths.js';
import { shouldUseColor } from '../../src/cli/output.js';
import { tempDir } from '../helpers/fake-context.js';

/** Runs the CLI in-process with captured output, no TTY and a clean environment. */
async function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'kop', ...args], {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    stdin: { isTTY: false },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
  });
  return { code, stdout, stderr };
}

describe('kop CLI', () => {
  const cases = [
    {
      name: '--help',
      given: ['--help'],
      want: { code: 0, stdout: /Usage: kop \[options\] \[command\][^]*--dry-run[^]*init[^]*version/ },
    },
    {
      name: 'init --help shows its flags and the global ones',
      given: ['init', '--help'],
      want: { code: 0, stdout: /--project-name[^]*--kop-source[^]*Global Options:[^]*--dry-run/ },
    },
    {
      name: 'version',
      given: ['version'],
      want: { code: 0, stdout: new RegExp(`^kop ${kopVersion().replace(/\./g, '\\.')} \\(node v\\d+\\.`) },
    },
    {
      name: '--version',
      given: ['--version'],
      want: { code: 0, stdout: new RegExp(`^${kopVersion().replace(/\./g, '\\.')}\\n$`) },
    },
    // Unknown words exit 1, as cobra's do (test/cli/cli-unknown-command.test.ts has the table).
    { name: 'unknown option is an error', given: ['--bogus'], want: { code: 1, stderr: /unknown option '--bogus'/ } },
    {
      name: 'unknown command is an error with a suggestion',
      given: ['inti'],
      want: { code: 1, stderr: /unknown command 'inti'[^]*Did you mean init\?/ },
    },
    { name: 'no command shows help as a usage error', given: [], want: { code: 2, stderr: /Usage: kop/ } },
    {
      name: 'missing option value',
      given: ['init', '--domain'],
      want: { code: 2, stderr: /option '--domain <domain>' argument missing/ },
    },
  ];
  for (const { name, given, want } of cases) {
    it(name, async () => {
      const result = await run(given);
      expect(result.code).toBe(want.code);
      if (want.stdout) expect(result.stdout).toMatch(want.stdout);
      if (want.stderr) expect(result.stderr).toMatch(want.stderr);
    });
  }

  it('prints a bad name as one line with exit code 2 and no stack, and writes nothing', async () => {
    const { dir, cleanup } = await tempDir('proj');
    try {
      for (const bad of ['Bad_Name', '../x']) {
        const result = await run(['init', '--project-name', bad, '--skip-install'], { cwd: dir });
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(
          new RegExp(
            `^error: --project-name: invalid project name "${bad.replace('.', '\\.')}": a project name must be a DNS-1123 label`,
          ),
        );
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).not.toMatch(/\bat .*\.(ts|js):\d+/);
      }
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await cleanup();
    }
  });

  it('shows the stack with --verbose or DEBUG=kop', async () => {
    const { dir, cleanup } = await tempDir('proj');
    try {
      for (const [args, env] of [
        [['--verbose'], {}],
        [[], { DEBUG: 'kop' }],
      ] as const) {
        const result = await run([...args, 'init', '--project-name', 'Bad_Name'], { cwd: dir, env });
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/UsageError: [^]*\n\s+at /);
      }
    } finally {
      await cleanup();
    }
  });

  it('refuses a second init with exit code 1 and a hint', async () => {
    const { dir, cleanup } = await tempDir('proj');
    try {
      expect((await run(['init', '--skip-install', '--kop-source', 'file:../kop'], { cwd: dir })).code).toBe(0);
      const before = await readdir(dir);
      const second = await run(['init', '--skip-install'], { cwd: dir });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        /^error: .* already has a PROJECT \(it is a kop project\); kop init wrote nothing\nhint: .*--force/,
      );
      expect(await readdir(dir)).toEqual(before);
    } finally {
      await cleanup();
    }
  });

  it('global flags work after the command name too (--dry-run writes nothing)', async () => {
    const { dir, cleanup } = await tempDir('proj');
    try {
      const result = await run(['init', '--dry-run', '--skip-install'], { cwd: dir });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/CREATE PROJECT[^]*CREATE src\/main\.ts[^]*dry run: nothing was written/);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});

describe('formatError', () => {
  it('prints every line of a kop error and its hint, the stack only when verbose', () => {
    const error = new KopError('it broke\nsecond line', 'try this');
    expect(formatError(error, false)).toBe('error: it broke\nsecond line\nhint: try this');
    expect(formatError(new Error('unexpected\ninternal detail'), false)).toBe('error: unexpected');
    expect(formatError(error, true)).toMatch(/^error: it broke\nsecond line\nhint: try this\nKopError: it broke/);
    expect(formatError('text', false)).toBe('error: text');
    expect(new UsageError('x').exitCode).toBe(2);
  });
});

describe('shouldUseColor', () => {
  const cases = [
    { given: { tty: true, env: {}, flag: true }, want: true },
    { given: { tty: false, env: {}, flag: true }, want: false },
    { given: { tty: true, env: { NO_COLOR: '1' }, flag: true }, want: false },
    { given: { tty: true, env: { NO_COLOR: '' }, flag: true }, want: true },
    { given: { tty: true, env: {}, flag: false }, want: false },
    { given: { tty: false, env: { FORCE_COLOR: '1' }, flag: true }, want: true },
    { given: { tty: true, env: { TERM: 'dumb' }, flag: true }, want: false },
  ];
  for (const { given, want } of cases) {
    it(JSON.stringify(given), () => expect(shouldUseColor({ isTTY: given.tty }, given.env, given.flag)).toBe(want));
  }
});
