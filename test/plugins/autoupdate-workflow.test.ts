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
import { tempDir, testContext } from '../helpers/fake-context.js';

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
function resolveCommand(program: Command, words: string[]): { command: Command; flags: Set<string | undefined> } {
  let command = program;
  const flags = new Set<string | undefined>(program.options.map((option) => option.long));
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
    expect(workflow.jobs['auto-update']!.permissions).toEqual({
      contents: 'write',
      'pull-requests': 'write',
      issues: 'write',
    });
    // The token comes from the job's own permissions, never a personal secret.
    expect(text).not.toMatch(/secrets\./);
  });

  it('pins every action to a commit, named by its version', () => {
    const uses = steps.flatMap((step) => (step.uses === undefined ? [] : [step.uses]));
    expect(uses.length).toBeGreaterThan(1);
    for (const use of uses) expect(use).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
    for (const line of text.split('\n').filter((l) => l.includes('uses:')))
      expect(line).toMatch(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
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
    const program = createProgram({
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: {},
      env: {},
      cwd: process.cwd(),
    });
    const invocations = kopInvocations();
    expect(invocations.map((words) => words.filter((word) => !word.startsWith('--')).join(' '))).toEqual(
      expect.arrayContaining(['version', 'alpha update']),
    );
    for (const words of invocations) {
      const { flags } = resolveCommand(program, words);
      for (const word of words.filter((w) => w.startsWith('--')))
        expect(flags, `kop ${words.join(' ')}: ${word}`).toContain(word);
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
      await runInit(
        { projectName: 'demo', domain: 'example.com', license: 'none', kopSource: 'file:../kop', skipInstall: true },
        testContext({ cwd: dir }),
      );
      expect(sed(fromSed!, await readFile(path.join(dir, 'PROJECT'), 'utf8'))).toBe(kopVersion());
      let out = '';
      const code = await main(['node', 'kop', 'version'], {
        stdout: { write: (chunk: string) => ((out += chunk), true) } as never,
        env: { NO_COLOR: '1' },
        cwd: dir,
      });
      expect(code).toBe(0);
      expect(sed(toSed!, out)).toBe(kopVersion());
    });
  });
});

/**
 * The workflow's scripts, run as the runner runs them (bash -eo pipefail, step outputs through
 * GITHUB_OUTPUT) in a clone of a local repository, with stand-ins for `kop` (its version and an
 * `alpha update` that changes files, leaves conflict markers or fails) and `gh` (which records
 * what it was asked to open).
 */
describe('the autoupdate workflow, run', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let work: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, encoding: 'utf8' }).trim();
  const stepScript = (name: string) => steps.find((step) => step.name === name)!.run!;

  const FAKE_KOP = `#!/bin/bash
if [ "$1" = version ]; then echo "kop \${FAKE_KOP_VERSION} (node v24.0.0)"; exit 0; fi
if [ "$1 $2" != "alpha update" ] || [ $# -ne 2 ]; then echo "fake kop: unexpected $*" >&2; exit 2; fi
case "$FAKE_MODE" in
  clean)
    echo "export const a = 2;" > src/a.ts
    echo "# changed by kop" >> .github/workflows/ci.yml
    echo "name: new" > .github/workflows/new.yml
    sed -i "s/^cliVersion: .*/cliVersion: \${FAKE_KOP_VERSION}/" PROJECT ;;
  conflict)
    printf '<<<<<<< ours\\nexport const a = 1;\\n=======\\nexport const a = 2;\\n>>>>>>> kop %s\\n' "$FAKE_KOP_VERSION" > src/a.ts
    exit 1 ;;
  fail)
    echo "error: cannot rebuild the scaffold" >&2
    exit 1 ;;
esac
`;
  const FAKE_GH = `#!/bin/bash
printf '%s\\0' "$@" >> "$FAKE_GH_LOG"; printf '\\036' >> "$FAKE_GH_LOG"
if [ "$1" = pr ] && [ -n "$FAKE_GH_PR_FAILS" ]; then echo "GraphQL: GitHub Actions is not permitted to create or approve pull requests" >&2; exit 1; fi
`;

  beforeEach(async () => {
    const { mkdir, writeFile, chmod } = await import('node:fs/promises');
    ({ dir: root, cleanup } = await tempDir('autoupdate'));
    work = path.join(root, 'work');
    execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', path.join(root, 'origin.git')]);
    await mkdir(path.join(work, 'src'), { recursive: true });
    await mkdir(path.join(work, '.github/workflows'), { recursive: true });
    await mkdir(path.join(root, 'bin'));
    await writeFile(path.join(work, 'PROJECT'), 'version: "1"\ncliVersion: 0.0.9\nprojectName: demo\n');
    await writeFile(path.join(work, 'src/a.ts'), 'export const a = 1;\n');
    await writeFile(path.join(work, '.github/workflows/ci.yml'), 'name: ci\n');
    await writeFile(path.join(root, 'bin/kop'), FAKE_KOP);
    await writeFile(path.join(root, 'bin/gh'), FAKE_GH);
    await chmod(path.join(root, 'bin/kop'), 0o755);
    await chmod(path.join(root, 'bin/gh'), 0o755);
    execFileSync('git', ['init', '--quiet', '-b', 'main'], { cwd: work });
    git('config', 'user.name', 'Dev');
    git('config', 'user.email', 'dev@example.com');
    git('add', '--all');
    git('commit', '--quiet', '-m', 'init');
    git('remote', 'add', 'origin', path.join(root, 'origin.git'));
    git('push', '--quiet', 'origin', 'main');
  });
  afterEach(() => cleanup());

  /** Runs one step's script; returns its exit code and the outputs it wrote. */
  function runStep(
    name: string,
    env: Record<string, string>,
  ): { code: number; outputs: Record<string, string>; stderr: string } {
    const outputFile = path.join(root, `output-${name.replace(/\W+/g, '-')}`);
    execFileSync('touch', [outputFile]);
    let code = 0;
    let stderr = '';
    try {
      execFileSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', stepScript(name)], {
        cwd: work,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: `${path.join(root, 'bin')}:${process.env.PATH ?? ''}`,
          HOME: root,
          GIT_CONFIG_NOSYSTEM: '1',
          GITHUB_OUTPUT: outputFile,
          GITHUB_SERVER_URL: 'https://github.com',
          GITHUB_REPOSITORY: 'acme/demo',
          GITHUB_REF_NAME: 'main',
          FAKE_GH_LOG: path.join(root, 'gh.log'),
          ...env,
        },
      });
    } catch (error) {
      const failure = error as { status: number; stderr: string };
      code = failure.status;
      stderr = failure.stderr;
    }
    return { code, outputs: parseOutputs(execFileSync('cat', [outputFile], { encoding: 'utf8' })), stderr };
  }

  /** GITHUB_OUTPUT's `name=value` lines and `name<<DELIMITER` blocks. */
  function parseOutputs(text: string): Record<string, string> {
    const outputs: Record<string, string> = {};
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const block = /^([\w-]+)<<(.+)$/.exec(lines[i]!);
      if (block) {
        const end = lines.indexOf(block[2]!, i + 1);
        outputs[block[1]!] = lines.slice(i + 1, end).join('\n');
        i = end;
      } else if (lines[i]!.includes('=')) {
        const at = lines[i]!.indexOf('=');
        outputs[lines[i]!.slice(0, at)] = lines[i]!.slice(at + 1);
      }
    }
    return outputs;
  }

  /** gh's calls, each its arguments (NUL after each argument, RS after each call). */
  const ghCalls = () => {
    const log = path.join(root, 'gh.log');
    const text = execFileSync('bash', ['-c', `cat "${log}" 2>/dev/null || true`], { encoding: 'utf8' });
    return text
      .split('\x1e')
      .filter(Boolean)
      .map((call) => call.split('\0').slice(0, -1));
  };

  /** The three steps in order, as the job runs them (each only when the one before asks for it). */
  function runJob(env: Record<string, string>) {
    const versions = runStep('Compare versions', env);
    expect(versions.code, versions.stderr).toBe(0);
    if (versions.outputs.update !== 'true') return { versions };
    const stepEnv = {
      ...env,
      FROM: versions.outputs.from!,
      TO: versions.outputs.to!,
      BRANCH: versions.outputs.branch!,
    };
    const update = runStep('Run kop alpha update', stepEnv);
    if (update.code !== 0 || update.outputs.pushed !== 'true') return { versions, update };
    const open = runStep('Open a pull request, or an issue', { ...stepEnv, CONFLICTS: update.outputs.conflicts ?? '' });
    return { versions, update, open };
  }

  const BRANCH = 'kop-update-from-0.0.9-to-1.0.0';

  it('a clean update: the branch is pushed (workflows untouched) and a pull request opened', () => {
    const { versions, update, open } = runJob({ FAKE_KOP_VERSION: '1.0.0', FAKE_MODE: 'clean' });
    expect(versions.outputs).toMatchObject({ from: '0.0.9', to: '1.0.0', branch: BRANCH, update: 'true' });
    expect(update!.code, update!.stderr).toBe(0);
    expect(open!.code, open!.stderr).toBe(0);
    const pushed = (file: string) =>
      execFileSync('git', ['show', `${BRANCH}:${file}`], { cwd: path.join(root, 'origin.git'), encoding: 'utf8' });
    expect(pushed('src/a.ts')).toBe('export const a = 2;\n');
    expect(pushed('PROJECT')).toContain('cliVersion: 1.0.0');
    expect(pushed('.github/workflows/ci.yml')).toBe('name: ci\n');
    expect(() => pushed('.github/workflows/new.yml')).toThrow();
    const calls = ghCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.slice(0, 6)).toEqual(['pr', 'create', '--base', 'main', '--head', BRANCH]);
    expect(calls[0]).toContain('Update the kop scaffold from 0.0.9 to 1.0.0');
  });

  it('conflicts: the branch is pushed with the markers, and an issue names the files with a link to open the pull request', () => {
    const { update, open } = runJob({ FAKE_KOP_VERSION: '1.0.0', FAKE_MODE: 'conflict' });
    expect(update!.code, update!.stderr).toBe(0);
    expect(update!.outputs.conflicts).toBe('src/a.ts');
    expect(open!.code, open!.stderr).toBe(0);
    const calls = ghCalls();
    expect(calls.map((call) => call.slice(0, 2))).toEqual([['issue', 'create']]);
    const body = calls[0]![calls[0]!.indexOf('--body') + 1]!;
    expect(body).toContain('- src/a.ts');
    expect(body).toContain(`https://github.com/acme/demo/compare/main...${BRANCH}?expand=1`);
    expect(
      execFileSync('git', ['log', '-1', '--format=%s', BRANCH], {
        cwd: path.join(root, 'origin.git'),
        encoding: 'utf8',
      }),
    ).toContain('with conflicts to resolve');
  });

  it('when Actions may not open pull requests, an issue with the link is opened instead', () => {
    const { open } = runJob({ FAKE_KOP_VERSION: '1.0.0', FAKE_MODE: 'clean', FAKE_GH_PR_FAILS: '1' });
    expect(open!.code, open!.stderr).toBe(0);
    expect(ghCalls().map((call) => call.slice(0, 2))).toEqual([
      ['pr', 'create'],
      ['issue', 'create'],
    ]);
  });

  it('a failing update fails the job and pushes nothing', () => {
    const { update, open } = runJob({ FAKE_KOP_VERSION: '1.0.0', FAKE_MODE: 'fail' });
    expect(update!.code).toBe(1);
    expect(open).toBeUndefined();
    expect(
      execFileSync('git', ['branch', '--list', BRANCH], { cwd: path.join(root, 'origin.git'), encoding: 'utf8' }),
    ).toBe('');
    expect(ghCalls()).toEqual([]);
  });

  it('nothing to do on the newest kop, or when the branch was pushed before', () => {
    expect(runJob({ FAKE_KOP_VERSION: '0.0.9', FAKE_MODE: 'fail' }).versions.outputs.update).toBe('false');
    git('push', '--quiet', 'origin', `main:refs/heads/${BRANCH}`);
    const again = runJob({ FAKE_KOP_VERSION: '1.0.0', FAKE_MODE: 'fail' });
    expect(again.versions.outputs.update).toBe('false');
    expect(again.update).toBeUndefined();
    expect(ghCalls()).toEqual([]);
  });
});
