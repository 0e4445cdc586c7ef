import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/base/errors.js';
import { clockFromEnv, createPrompter, execaExec } from '../../src/base/make-context.js';
import { createOutput } from '../../src/cli/output.js';

describe('non-interactive prompter', () => {
  const prompter = createPrompter({ interactive: false });
  const cases = [
    {
      name: 'text with a default',
      given: { flag: '--domain', type: 'text' as const, message: 'Domain', initial: 'my.domain' },
      want: 'my.domain',
    },
    {
      name: 'confirm with a default',
      given: { flag: '--namespaced', type: 'confirm' as const, message: 'Namespaced?', initial: false },
      want: false,
    },
    {
      name: 'select with a default',
      given: {
        flag: '--license',
        type: 'select' as const,
        message: 'License',
        initial: 'none',
        choices: ['apache2', 'none'],
      },
      want: 'none',
    },
  ];
  for (const { name, given, want } of cases)
    it(`${name} takes the default`, async () => expect(await prompter.ask(given)).toBe(want));

  it('a required answer without a default is a UsageError naming the flag', async () => {
    const error = await prompter
      .ask({ flag: '--owner', type: 'text', message: 'Copyright owner' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: 'missing --owner: Copyright owner',
      hint: 'pass --owner <value> (there is no terminal to ask on)',
    });
    expect(prompter.interactive).toBe(false);
  });
});

describe('clockFromEnv', () => {
  it('pins the clock to SOURCE_DATE_EPOCH for reproducible output', () => {
    expect(clockFromEnv({ SOURCE_DATE_EPOCH: '1767323045' })().toISOString()).toBe('2026-01-02T03:04:05.000Z');
  });
  it('uses the real time otherwise', () => {
    const before = Date.now();
    const now = clockFromEnv({ SOURCE_DATE_EPOCH: 'not-a-number' })().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('execaExec', () => {
  it('passes arguments as an array, never through a shell', async () => {
    const result = await execaExec(
      process.execPath,
      ['-e', 'process.stdout.write(process.argv[1]); process.exit(3)', '$(echo hi); rm -rf /'],
      {},
    );
    expect(result).toEqual({ exitCode: 3, stdout: '$(echo hi); rm -rf /', stderr: '' });
  });
  it('reports a missing program as exit code 127', async () => {
    const result = await execaExec('kop-no-such-program', [], {});
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toMatch(/kop-no-such-program/);
  });
});

describe('createOutput', () => {
  it('sends info to stdout, warnings and verbose detail to stderr, without colour codes when off', () => {
    let stdout = '';
    let stderr = '';
    const streams = {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
    };
    const quiet = createOutput(streams, { verbose: false, color: false });
    quiet.info('hello');
    quiet.warn('careful');
    quiet.debug('hidden');
    expect(stdout).toBe('hello\n');
    expect(stderr).toBe('warning: careful\n');
    const loud = createOutput(streams, { verbose: true, color: true });
    loud.debug('shown');
    expect(stderr).toBe('warning: careful\n\u001b[2mshown\u001b[22m\n');
  });
});
