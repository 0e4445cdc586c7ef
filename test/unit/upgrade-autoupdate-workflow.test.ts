import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kopVersion } from '../../src/base/paths.js';
import { createProgram, main } from '../../src/cli/main.js';
import { runInit } from '../../src/init/run-init.js';
import { autoUpdateWorkflow } from '../../src/plugins/autoupdate/autoupdate-plugin.js';
import { tempDir, testContext } from './helpers/fake-context.js';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, { permissions: Record<string, string>; steps: Step[]; env: Record<string, string> }>;
}

const text = await autoUpdateWorkflow();
const workflow = parse(text) as Workflow;
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const scripts = steps.flatMap((step) => (step.run === undefined ? [] : [step.run]));

/** Every `kop ...` invocation in the scripts (a line's command or a `$(...)`), as its words up to the first shell operator. */
function kopInvocations(): string[][] {
  const found: string[][] = [];
  for (const script of scripts) {
    for (const match of script.matchAll(/(?:^\s*|\$\()kop((?: +[^\s|;&)]+)*)/gm)) {
      const words = match[1]!.trim().split(/ +/).filter(Boolean);
      const end = words.findIndex((word) => !/^(--)?[a-z][a-z-]*$/.test(word));
      found.push(end === -1 ? words : words.slice(0, end));
    }
  }
  return found;
}

/** The command of kop's CLI a word path names, and the flags it (or the root) accepts. */
function resolveCommand(program: Command, words: string[]): { command: Command; flags: Set<string> } {
  let command = program;
  const flags = new Set(program.options.map((option) => option.long));
  for (const word of words) {
    if (word.startsWith('--')) continue;
    const sub = command.commands.find((candidate) => candidate.name() === word || candidate.aliases().includes(word));
    expect(sub, `kop ${words.join(' ')}: no command ${word}`).toBeDefined();
    command = sub!;
    for (const option of command.options) flags.add(option.long);
  }
  return { command, flags };
}

/** Runs one sed expression of the workflow on `input`, as the runner's bash would. */
function sed(expression: string, input: string): string {
  return execFileSync('sed', ['-n', expression], { input, encoding: 'utf8' }).trim();
}

describe('the autoupdate workflow (.github/workflows/auto_update.yml)', () => {
  it('runs weekly and by hand, with no permission at the top and only what it needs for its job', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(workflow.on.schedule).toEqual([{ cron: '0 0 * * 2' }]);
    expect(workflow.permissions).toEqual({});
    expect(Object.keys(workflow.jobs)).toEqual(['auto-update']);
    expect(workflow.jobs['auto-update']!.permissions).toEqual({ contents: 'write', 'pull-requests': 'write', issues: 'write' });
    // The token comes from the job's own permissions, never a personal secret.
    expect(text).not.toMatch(/secrets\./);
  });

  it('pins every action to a commit, named by its version', () => {
    const uses = steps.flatMap((step) => (step.uses === undefined ? [] : [step.uses]));
    expect(uses.length).toBeGreaterThan(1);
    for (const use of uses) expect(use).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
    for (const line of text.split('\n').filter((l) => l.includes('uses:'))) expect(line).toMatch(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  it('installs kop from KOP_PACKAGE (kop@latest unless the repository variable names another spec)', () => {
    expect(workflow.jobs['auto-update']!.env.KOP_PACKAGE).toBe("${{ vars.KOP_PACKAGE || 'kop@latest' }}");
    expect(scripts.some((script) => script.includes('npm install --global "$KOP_PACKAGE"'))).toBe(true);
  });

  it('every script is valid bash, and takes no ${{ }} expression into its text (values come in through env)', () => {
    for (const script of scripts) {
      execFileSync('bash', ['-n'], { input: script });
      expect(script).not.toContain('${{');
    }
  });

  it("runs only kop commands and flags that exist in kop's CLI", () => {
    const program = createProgram({ stdout: process.stdout, stderr: process.stderr, stdin: {}, env: {}, cwd: process.cwd() });
    const invocations = kopInvocations();
    expect(invocations.map((words) => words.filter((word) => !word.startsWith('--')).join(' '))).toEqual(expect.arrayContaining(['version', 'alpha update']));
    for (const words of invocations) {
      const { flags } = resolveCommand(program, words);
      for (const word of words.filter((w) => w.startsWith('--'))) expect(flags, `kop ${words.join(' ')}: ${word}`).toContain(word);
    }
  });

  describe('reads the versions as kop writes them', () => {
    let dir: string;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ dir, cleanup } = await tempDir('demo')));
    afterEach(() => cleanup());

    it("PROJECT's cliVersion and `kop version`'s output", async () => {
      const versions = steps.find((step) => step.name === 'Compare versions')!.run!;
      const [fromSed, toSed] = [...versions.matchAll(/sed -n '([^']+)'/g)].map((match) => match[1]!);
      await runInit({ projectName: 'demo', domain: 'example.com', license: 'none', kopSource: 'file:../kop', skipInstall: true }, testContext({ cwd: dir }));
      expect(sed(fromSed!, await readFile(path.join(dir, 'PROJECT'), 'utf8'))).toBe(kopVersion());
      let out = '';
      const code = await main(['node', 'kop', 'version'], { stdout: { write: (chunk: string) => ((out += chunk), true) } as never, env: { NO_COLOR: '1' }, cwd: dir });
      expect(code).toBe(0);
      expect(sed(toSed!, out)).toBe(kopVersion());
    });
  });
});
