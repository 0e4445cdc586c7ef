// Runs one of Kubebuilder's testdata scripts (scripts.mjs) with the built kop, command for command,
// in a fresh temp folder, and records what each step did: the commands, the make steps mapped to
// kop's (`make all` → steps `generate` = `kop generate` and `build` = `npm run build` without its
// prebuild, that same `kop generate`,
// `make build-installer` → step `build-installer` = `kop build-installer`; when commands follow
// them, `generate (end)` and `build (end)` once more), then step `test` = `npm test`, and a
// comparison of the project's PROJECT with Kubebuilder's (expected/<project>.yaml). Used by test/e2e/kubebuilder-testdata.test.ts,
// hack/kubebuilder-testdata.mjs and bench/kubebuilder-script.mjs.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { parse } from 'yaml';
import { compareProject } from './compare-project.mjs';
import { KUBEBUILDER_SCRIPTS } from './scripts.mjs';

/** The kop checkout this harness belongs to. */
export const KOP_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The built CLI, as users run it. */
export const KOP_BIN = path.join(KOP_ROOT, 'bin/kop.js');

/**
 * Flags the runner adds to `kop init` that Kubebuilder's script does not have: `--skip-install`,
 * because the runner links kop's own node_modules into the project instead of installing from a
 * registry (no network where the tests run, and the bench measures kop without npm install).
 */
export const INIT_EXTRA_FLAGS = ['--skip-install'];

const COMMAND_TIMEOUT_MS = 180_000;
// A project's npm test takes 25-90 s (see test/e2e/kubebuilder-testdata.test.ts); the limit is for a slow CI machine.
const TEST_TIMEOUT_MS = 360_000;

/** The expected PROJECT (normalised form) of a reference project. */
export async function loadExpectedProject(projectName) {
  return parse(await readFile(new URL(`./expected/${projectName}.yaml`, import.meta.url), 'utf8'));
}

/**
 * The line that says why a step failed: kop's `error:` line, else the first line that looks like
 * an error (tsc's `error TS`, vitest's `FAIL`), else the last line of output.
 */
export function firstErrorLine(stderr, stdout = '') {
  const lines = `${stderr}\n${stdout}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return (
    lines.find((l) => /^error:/i.test(l)) ??
    lines.find((l) => /error TS\d+|^FAIL\b|^×|^Error\b|\bERR!|Error:/.test(l)) ??
    lines.at(-1) ??
    '(no output)'
  );
}

/**
 * As initLinkedProject in test/helpers does it: kop's own dependencies and kop itself, so the
 * project builds and tests without a registry. With `unpackKop`, kop is the tarball `kop init` put
 * in `.kop/`, unpacked into node_modules/kop as npm would install it (a link to this checkout
 * where there is none): vitest loads a package under node_modules as Node does, but runs every
 * module of a linked folder outside node_modules through its own transform and module runner,
 * again in each test file's process, which made the project's `npm test` slower than a user's.
 * With `kop`, node_modules/kop is a link to that folder instead: a kop already unpacked under a
 * node_modules (the e2e run's one, test/helpers/e2e-global-setup.ts), loaded by vitest as Node does.
 * @param {string} project
 * @param {{ unpackKop?: boolean, kop?: string }} [options]
 */
export async function linkKopDependencies(project, options = {}) {
  const modules = path.join(project, 'node_modules');
  if (existsSync(modules)) return;
  await mkdir(modules);
  for (const entry of await readdir(path.join(KOP_ROOT, 'node_modules'))) {
    if (entry !== '.cache' && entry !== '.bin')
      await symlink(path.join(KOP_ROOT, 'node_modules', entry), path.join(modules, entry), 'dir');
  }
  const packed = options.unpackKop
    ? (await readdir(path.join(project, '.kop')).catch(() => [])).find((name) => /^kop-.+\.tgz$/.test(name))
    : undefined;
  if (packed === undefined) {
    await symlink(options.kop ?? KOP_ROOT, path.join(modules, 'kop'), 'dir');
  } else {
    await mkdir(path.join(modules, 'kop'));
    // npm's tarballs hold the package under package/.
    await execa('tar', [
      '-xzf',
      path.join(project, '.kop', packed),
      '--strip-components=1',
      '-C',
      path.join(modules, 'kop'),
    ]);
  }
  const bin = path.join(modules, '.bin');
  await mkdir(bin);
  for (const tool of await readdir(path.join(KOP_ROOT, 'node_modules/.bin')))
    await symlink(path.join(KOP_ROOT, 'node_modules/.bin', tool), path.join(bin, tool));
  await symlink(KOP_BIN, path.join(bin, 'kop'));
}

async function run(file, args, cwd, timeout = COMMAND_TIMEOUT_MS, env = {}) {
  const started = performance.now();
  const result = await execa(file, args, {
    cwd,
    reject: false,
    stdin: 'ignore',
    timeout,
    env: { NO_COLOR: '1', CI: 'true', FORCE_COLOR: '0', ...env },
  });
  const ms = performance.now() - started;
  const ok = result.exitCode === 0 && !result.timedOut;
  return {
    ok,
    exitCode: result.exitCode ?? null,
    ms,
    firstError: ok
      ? undefined
      : result.timedOut
        ? `timed out after ${timeout / 1000} s`
        : firstErrorLine(result.stderr ?? '', result.stdout ?? ''),
    output: `${result.stdout ?? ''}\n${result.stderr ?? ''}`,
  };
}

const kop = (args, cwd, env) => run(process.execPath, [KOP_BIN, ...args], cwd, COMMAND_TIMEOUT_MS, env);

/**
 * `make all`'s build: `npm run build` without its `prebuild` (`kop generate`), which the step
 * before has just run (the project's `npm test` runs it once more, through `pretest`). Given
 * `tsc`, a build script that is `tsc -p <tsconfig>` runs in that compiler instead of a process of
 * its own: the e2e run's one TypeScript (test/helpers/typecheck.ts), the same version the project
 * links, with the same emit.
 */
async function build(dir, env, tsc) {
  const script = tsc && JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')).scripts?.build;
  const project = /^tsc -p (\S+)$/.exec(script ?? '')?.[1];
  if (project === undefined) return run('npm', ['run', 'build', '--ignore-scripts'], dir, COMMAND_TIMEOUT_MS, env);
  const started = performance.now();
  const result = await tsc(['-p', project], dir);
  const ok = result.exitCode === 0;
  return {
    ok,
    exitCode: result.exitCode,
    ms: performance.now() - started,
    firstError: ok ? undefined : firstErrorLine('', result.stdout),
    output: result.stdout,
  };
}

/** The argv kop runs for a script command: `kop` → the built CLI, init with INIT_EXTRA_FLAGS. */
export function kopArgs(argv) {
  const args = argv.slice(1);
  return args[0] === 'init' ? [...args, ...INIT_EXTRA_FLAGS] : args;
}

/**
 * Runs a script.
 * @param {keyof typeof KUBEBUILDER_SCRIPTS} projectName
 * @param {{ keep?: boolean, test?: boolean, build?: boolean, compare?: boolean, log?: (line: string) => void, env?: Record<string, string>, tsc?: (args: string[], cwd: string) => Promise<{ exitCode: number, stdout: string }> }} [options]
 *   `test: false` skips `npm test`, `build: false` every npm step (the bench: kop's own time); `env`
 *   is added to every command's environment (the e2e test's PATH with the run's one packed kop);
 *   `tsc` runs a build script that is `tsc -p <tsconfig>` (see build()).
 */
export async function runKubebuilderScript(projectName, options = {}) {
  const script = KUBEBUILDER_SCRIPTS[projectName];
  if (!script) throw new Error(`no Kubebuilder script for ${projectName}`);
  const log = options.log ?? (() => {});
  const env = options.env ?? {};
  const parent = await mkdtemp(path.join(tmpdir(), 'kop-kb-testdata-'));
  // Kubebuilder takes the project name from the folder; so does kop.
  const dir = path.join(parent, projectName);
  await mkdir(dir);
  const commands = [];
  const steps = [];
  /** @type {string[]} */
  const bootstrap = [];
  let kopMs = 0;
  let lastMakeIndex = -1;
  script.forEach((step, i) => {
    if (!Array.isArray(step) && 'make' in step) lastMakeIndex = i;
  });
  try {
    for (const step of script) {
      if (Array.isArray(step)) {
        const result = await kop(kopArgs(step), dir, env);
        kopMs += result.ms;
        const afterFailure = !result.ok && commands.some((c) => !c.ok && sameKind(c.argv, step));
        commands.push({
          argv: step,
          ok: result.ok,
          exitCode: result.exitCode,
          ms: result.ms,
          firstError: result.firstError,
          ...(afterFailure ? { afterFailure } : {}),
        });
        log(
          `${result.ok ? 'ok  ' : 'FAIL'} ${step.join(' ')}${result.ok ? '' : `\n       ${result.firstError}${afterFailure ? ' (an earlier command for this kind failed)' : ''}`}`,
        );
        if (step[1] === 'init') {
          if (!result.ok) bootstrap.push(...(await bootstrapInit(step, dir, log, env)));
          if (existsSync(path.join(dir, 'PROJECT')) && options.build !== false)
            await linkKopDependencies(dir, { unpackKop: true });
        }
        continue;
      }
      if (step.make === 'all') {
        steps.push(
          await namedStep(
            'generate',
            () => kop(['generate'], dir, env),
            log,
            (ms) => (kopMs += ms),
          ),
        );
        if (options.build !== false) steps.push(await namedStep('build', () => build(dir, env, options.tsc), log));
      } else {
        steps.push(
          await namedStep(
            'build-installer',
            () => kop(['build-installer'], dir, env),
            log,
            (ms) => (kopMs += ms),
          ),
        );
      }
    }
    if (lastMakeIndex < script.length - 1) {
      // Commands follow the last make step (with-plugins' Helm and auto-update edits): generate and build again.
      steps.push(
        await namedStep(
          'generate (end)',
          () => kop(['generate'], dir, env),
          log,
          (ms) => (kopMs += ms),
        ),
      );
      if (options.build !== false) steps.push(await namedStep('build (end)', () => build(dir, env, options.tsc), log));
    }
    if (options.build !== false && options.test !== false) {
      steps.push(await namedStep('test', () => run('npm', ['test'], dir, TEST_TIMEOUT_MS, env), log));
    }
    let projectDifferences = ['PROJECT missing'];
    if (options.compare !== false && existsSync(path.join(dir, 'PROJECT'))) {
      projectDifferences = compareProject(
        await readFile(path.join(dir, 'PROJECT'), 'utf8'),
        await loadExpectedProject(projectName),
      );
    }
    return { projectName, dir, commands, steps, bootstrap, kopMs, projectDifferences };
  } finally {
    if (!options.keep) await rm(parent, { recursive: true, force: true });
  }
}

/** The value of `--name` in argv, spelt `--name value` or `--name=value`. */
function flagValue(argv, name) {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** Both commands name the same group and kind (a webhook for a kind whose `create api` failed). */
function sameKind(a, b) {
  const kind = flagValue(a, '--kind');
  return kind !== undefined && kind === flagValue(b, '--kind') && flagValue(a, '--group') === flagValue(b, '--group');
}

async function namedStep(name, action, log, addKopMs = () => {}) {
  const result = await action();
  addKopMs(result.ms);
  log(`${result.ok ? 'ok  ' : 'FAIL'} [${name}]${result.ok ? '' : `\n       ${result.firstError}`}`);
  return { name, ok: result.ok, ms: result.ms, firstError: result.firstError };
}

/**
 * When the script's `init` fails, later commands would only report "not a kop project"; so the
 * project is made without the flags kop rejected (each `unknown option` it names, at most five),
 * and the rest of the script runs in it. The init command stays counted as failed; the flags left
 * out are returned so the report says so.
 */
async function bootstrapInit(argv, dir, log, env) {
  let args = kopArgs(argv);
  const dropped = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const result = await kop(args, dir, env);
    if (result.ok) {
      log(`     (bootstrap: the project was made by kop init without ${dropped.join(' ')})`);
      return dropped;
    }
    const unknown = /unknown option '([^']+)'/.exec(result.output);
    if (!unknown) break;
    dropped.push(unknown[1]);
    args = args.filter((a) => a !== unknown[1]);
  }
  log('     (bootstrap failed: no project to run the rest of the script in)');
  return dropped;
}

/** `N/M` commands that succeeded, and how many failures came after an earlier failure for the same kind. */
export function commandScore(result) {
  const after = result.commands.filter((c) => c.afterFailure).length;
  return `${result.commands.filter((c) => c.ok).length}/${result.commands.length}${after > 0 ? ` (${after} after an earlier failure)` : ''}`;
}

/** A table, one row per project: commands that succeed, each step, PROJECT differences. */
export function formatTable(results) {
  const stepNames = [...new Set(results.flatMap((r) => r.steps.map((s) => s.name)))];
  const header = ['project', 'commands', ...stepNames, 'PROJECT'];
  const rows = results.map((r) => [
    r.projectName,
    commandScore(r),
    ...stepNames.map((name) => {
      const step = r.steps.find((s) => s.name === name);
      return step ? (step.ok ? 'pass' : 'FAIL') : '-';
    }),
    r.projectDifferences.length === 0 ? 'matches' : `${r.projectDifferences.length} differences`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The distinct first error lines of failed commands and steps, with the commands that gave each. */
export function groupFailures(results) {
  /** @type {Map<string, string[]>} */
  const groups = new Map();
  for (const r of results) {
    for (const c of r.commands)
      if (!c.ok)
        add(
          groups,
          c.firstError,
          `${r.projectName}: ${c.argv.join(' ')}${c.afterFailure ? '  [after an earlier failure for this kind]' : ''}`,
        );
    for (const s of r.steps) if (!s.ok) add(groups, s.firstError, `${r.projectName}: [${s.name}]`);
  }
  return [...groups.entries()]
    .sort((a, b) => b[1].length - a[1].length)
    .map(([message, where]) => ({ message, where }));
}

/**
 * Failures that differ only in the value of an unknown flag or in a kind's name are one failure:
 * `unknown option '--controller-name=captain'` and `...=captain-backup'` group as
 * `unknown option '--controller-name=…'`.
 */
export function failureGroupKey(message) {
  return (message ?? '(no message)').replace(/unknown option '(--[^=']+)=[^']*'/, "unknown option '$1=…'");
}

function add(groups, message, where) {
  const key = failureGroupKey(message);
  groups.set(key, [...(groups.get(key) ?? []), where]);
}
