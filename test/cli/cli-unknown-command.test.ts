import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { closest } from '../../src/cli/unknown-command.js';
import { editDistance } from '../../src/base/edit-distance.js';
import { tempDir } from '../helpers/fake-context.js';

/** Runs the CLI in-process with captured output, no TTY and a clean environment. */
async function run(args: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'kop', ...args], {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    stdin: { isTTY: false },
    env: {},
    cwd,
  });
  return { code, stdout, stderr };
}

interface Case {
  given: string[];
  /** The unknown word as the error names it. */
  unknown: string;
  kind: 'command' | 'option';
  /** The suggestion, or undefined for none. */
  suggestion: string | undefined;
}

const CASES: Case[] = [
  { given: ['frobnicate'], unknown: 'frobnicate', kind: 'command', suggestion: undefined },
  { given: ['frobnicate', '--help'], unknown: 'frobnicate', kind: 'command', suggestion: undefined },
  { given: ['frobnicate', '-h'], unknown: 'frobnicate', kind: 'command', suggestion: undefined },
  { given: ['help', 'frobnicate'], unknown: 'frobnicate', kind: 'command', suggestion: undefined },
  { given: ['edti'], unknown: 'edti', kind: 'command', suggestion: 'edit' },
  { given: ['eidt', '--plugins', 'helm'], unknown: 'eidt', kind: 'command', suggestion: 'edit' },
  { given: ['ini'], unknown: 'ini', kind: 'command', suggestion: 'init' },
  { given: ['inti', '--help'], unknown: 'inti', kind: 'command', suggestion: 'init' },
  { given: ['generat'], unknown: 'generat', kind: 'command', suggestion: 'generate' },
  { given: ['--dry-run', 'genrate'], unknown: 'genrate', kind: 'command', suggestion: 'generate' },
  { given: ['creat', 'api'], unknown: 'creat', kind: 'command', suggestion: 'create' },
  { given: ['create', 'apii'], unknown: 'apii', kind: 'command', suggestion: 'api' },
  { given: ['create', 'webhok', '--help'], unknown: 'webhok', kind: 'command', suggestion: 'webhook' },
  { given: ['dploy'], unknown: 'dploy', kind: 'command', suggestion: 'deploy' },
  { given: ['--bogus'], unknown: '--bogus', kind: 'option', suggestion: undefined },
  { given: ['create', 'api', '--kindd', 'Memcached'], unknown: '--kindd', kind: 'option', suggestion: '--kind' },
  {
    given: ['create', 'webhook', '--defaulting-pth', '/x'],
    unknown: '--defaulting-pth',
    kind: 'option',
    suggestion: '--defaulting-path',
  },
  { given: ['edit', '--plugins', 'helm', '--forse'], unknown: '--forse', kind: 'option', suggestion: '--force' },
];

describe('unknown commands and flags', () => {
  for (const c of CASES) {
    it(`kop ${c.given.join(' ')}`, async () => {
      const { dir, cleanup } = await tempDir('unknown');
      try {
        const result = await run(c.given, dir);
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(new RegExp(`^error: unknown ${c.kind} '${c.unknown}'`));
        if (c.suggestion === undefined) expect(result.stderr).not.toMatch(/Did you mean/);
        else expect(result.stderr).toContain(`(Did you mean ${c.suggestion}?)`);
        // `edit` exists: a misspelt edit is never taken for init.
        if (c.suggestion !== 'init') expect(result.stderr).not.toContain('Did you mean init?');
      } finally {
        await cleanup();
      }
    });
  }

  it('kop edit --help shows the help of edit, exit 0', async () => {
    const { dir, cleanup } = await tempDir('unknown');
    try {
      const result = await run(['edit', '--help'], dir);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: kop edit \[options\]/);
      expect(result.stdout).toContain('--plugins');
      expect(result.stderr).toBe('');
    } finally {
      await cleanup();
    }
  });

  it('known commands with --help still show their help', async () => {
    const { dir, cleanup } = await tempDir('unknown');
    try {
      for (const args of [
        ['--help'],
        ['create', '--help'],
        ['create', 'webhook', '--help'],
        ['--dry-run', 'generate', '--help'],
        ['help', 'init'],
      ]) {
        const result = await run(args, dir);
        expect(result.code, args.join(' ')).toBe(0);
        expect(result.stdout, args.join(' ')).toMatch(/^Usage: kop/);
      }
    } finally {
      await cleanup();
    }
  });
});

describe('closest', () => {
  const cases: [word: string, candidates: string[], want: string | undefined][] = [
    ['edti', ['init', 'edit', 'generate'], 'edit'],
    ['edit', ['init', 'generate'], undefined],
    ['ini', ['init', 'edit'], 'init'],
    ['xyz', ['init', 'edit'], undefined],
    ['webhok', ['api', 'webhook'], 'webhook'],
  ];
  for (const [word, candidates, want] of cases) {
    it(`${word} among ${candidates.join(', ')}`, () => expect(closest(word, candidates)).toBe(want));
  }
  it('counts an adjacent swap as one edit', () => {
    expect(editDistance('edti', 'edit')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
  it('gives up past a limit, returning limit + 1, and is exact within it', () => {
    expect(editDistance('kitten', 'sitting', 2)).toBe(3);
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(editDistance('abcdef', 'badcfe', 3)).toBe(3);
    expect(editDistance('abcdef', 'badcfe', 2)).toBe(3);
    expect(editDistance('a', 'abcdefgh', 3)).toBe(4);
    // Every pair of short words: the limited distance is the exact one, capped at limit + 1.
    const words = ['', 'a', 'ab', 'ba', 'abc', 'acb', 'bca', 'maximum', 'maxiumm', 'minimum', 'edit', 'edti', 'init'];
    for (const a of words)
      for (const b of words)
        for (const limit of [0, 1, 2, 3])
          expect(editDistance(a, b, limit), `${a} ~ ${b} within ${limit}`).toBe(
            Math.min(editDistance(a, b), limit + 1),
          );
  });
});
