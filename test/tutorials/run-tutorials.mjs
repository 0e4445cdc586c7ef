// Follows the book's tutorials (tutorials.mjs) with the built kop, command for command, in a fresh
// temp folder: each `run` step as the page shows it, each `edit` step by copying the reader's files
// from testdata/tutorials/<name>.edits/<stage>/. Then, per tutorial: the project is compared with
// the committed one (testdata/tutorials/<name>/), or replaces it with `update`; the page is checked
// to show every command; and the project is built (`tsc --strict` through its `npm run build`),
// linted, format-checked and tested with its own `npm test` (a real control plane). The tutorials
// that build on another go on in the same folder, as their reader does.
// Used by hack/tutorials.mjs and test/tutorials/tutorials.e2e.test.ts.
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { KOP_BIN, KOP_ROOT, firstErrorLine, linkKopDependencies } from '../kubebuilder-testdata/run-script.mjs';
import { TUTORIALS, TUTORIAL_NAMES } from './tutorials.mjs';

/** Where the committed projects and the readers' edits live. */
export const TESTDATA = path.join(KOP_ROOT, 'testdata/tutorials');

/**
 * What is not committed nor compared, at the project's root: installed packages, build output
 * (dist/ holds `npm run build`'s JavaScript and `kop build-installer`'s install.yaml, which repeats
 * the CRDs of config/), and .kop/ (the packed kop tarball, made from this checkout, so it changes
 * with every change of kop; a reader commits theirs).
 */
export const NOT_COMPARED = ['node_modules', 'dist', '.kop'];

/**
 * The clock kop writes dates from (copyright years), pinned so the projects do not change at New Year:
 * 2026-01-01T00:00:00Z.
 */
const SOURCE_DATE_EPOCH = '1767225600';

/** `kop init` installs with npm unless told not to; the runner links kop's node_modules instead. */
const INIT_EXTRA_FLAGS = ['--skip-install'];

const COMMAND_TIMEOUT_MS = 180_000;
// A tutorial project's npm test takes about a minute here; the limit is for a slow CI machine.
const TEST_TIMEOUT_MS = 360_000;

/**
 * @typedef {{ name: string, ok: boolean, ms: number, firstError?: string }} StepResult
 * @typedef {{ tutorial: string, steps: StepResult[], differences: string[], pageProblems: string[], checks: StepResult[], updated: boolean }} TutorialResult
 */

/**
 * Runs tutorials (and the ones they build on, whose checks are skipped unless asked for too).
 * @param {{ names?: string[], update?: boolean, build?: boolean, test?: boolean, keep?: boolean, log?: (line: string) => void, env?: Record<string, string>, kop?: string }} [options]
 *   `update` rewrites testdata/tutorials/<name>/ from the run instead of comparing; `build: false`
 *   skips build, lint and test, `test: false` only the test. `env` is added to every command's
 *   environment; `kop` is a kop unpacked under a node_modules for the project to link (else this checkout).
 *   The e2e test passes the run's one packed kop for both (test/helpers/e2e-global-setup.ts).
 * @returns {Promise<{ dir: string, results: TutorialResult[] }>}
 */
export async function runTutorials(options = {}) {
  const wanted = options.names ?? TUTORIAL_NAMES;
  for (const name of wanted) if (!(name in TUTORIALS)) throw new Error(`no tutorial ${name}`);
  const log = options.log ?? (() => {});
  // Every tutorial a wanted one builds on, in the order they build.
  const chain = TUTORIAL_NAMES.filter((name) => wanted.some((w) => dependsOn(w, name)));
  const parent = await mkdtemp(path.join(tmpdir(), 'kop-tutorials-'));
  // kop takes the project name from the folder: the CronJob tutorial's reader makes `cronjob`.
  const dir = path.join(parent, 'cronjob');
  await mkdir(dir);
  /** @type {TutorialResult[]} */
  const results = [];
  try {
    for (const name of chain) {
      const checked = wanted.includes(name);
      log(`## ${name}${checked ? '' : ' (the project the next tutorial starts from)'}`);
      const steps = await followSteps(name, dir, log, options);
      const result = { tutorial: name, steps, differences: [], pageProblems: [], checks: [], updated: false };
      if (checked) results.push(result);
      if (steps.some((s) => !s.ok)) {
        log(`(stopped: a step failed; the tutorials after it are not run)`);
        break;
      }
      if (!checked) continue;
      if (options.update) {
        await writeCommitted(name, dir);
        result.updated = true;
        log(`updated testdata/tutorials/${name}/`);
      } else {
        result.differences = await compareTrees(dir, path.join(TESTDATA, name));
        log(
          result.differences.length === 0
            ? `ok   the project matches testdata/tutorials/${name}/`
            : `FAIL the project differs from testdata/tutorials/${name}/ (rerun with --update to take it):\n${result.differences.map((d) => `       ${d}`).join('\n')}`,
        );
      }
      result.pageProblems = await pageProblems(name);
      if (result.pageProblems.length > 0)
        log(`FAIL ${TUTORIALS[name].page}:\n${result.pageProblems.map((p) => `       ${p}`).join('\n')}`);
      if (options.build !== false) {
        const npm = (label, args, timeout) => check(label, () => run('npm', args, dir, timeout, options.env), log);
        result.checks.push(await npm('npm run build', ['run', 'build']));
        result.checks.push(await npm('npm run lint', ['run', 'lint']));
        result.checks.push(await npm('npm run format:check', ['run', 'format:check']));
        if (options.test !== false) result.checks.push(await npm('npm test', ['test'], TEST_TIMEOUT_MS));
      }
    }
    return { dir, results };
  } finally {
    if (options.keep) log(`project kept in ${dir}`);
    else await rm(parent, { recursive: true, force: true });
  }
}

/** Whether tutorial `name` is `base` or goes on from it. */
function dependsOn(name, base) {
  for (let current = name; current !== undefined; current = TUTORIALS[current].from) if (current === base) return true;
  return false;
}

/** One tutorial's steps in `dir`, timed; stops at the first that fails. */
async function followSteps(name, dir, log, options) {
  /** @type {StepResult[]} */
  const results = [];
  for (const step of TUTORIALS[name].steps) {
    let result;
    if ('edit' in step) {
      const started = performance.now();
      const from = path.join(TESTDATA, `${name}.edits`, step.edit);
      const ok = existsSync(from);
      if (ok) await cp(from, dir, { recursive: true });
      result = {
        name: `(edit: ${name}.edits/${step.edit}/)`,
        ok,
        ms: performance.now() - started,
        firstError: ok ? undefined : `testdata/tutorials/${name}.edits/${step.edit}/ is missing`,
      };
    } else if (step.run[0] === 'npm') {
      result = await addDependency(dir, step.run);
    } else {
      const args = step.run.slice(1);
      if (args[0] === 'init') args.push(...INIT_EXTRA_FLAGS);
      const outcome = await run(process.execPath, [KOP_BIN, ...args], dir, COMMAND_TIMEOUT_MS, options.env);
      result = { name: step.run.join(' '), ok: outcome.ok, ms: outcome.ms, firstError: outcome.firstError };
      if (args[0] === 'init' && outcome.ok) await linkKopDependencies(dir, { kop: options.kop });
    }
    results.push(result);
    log(
      `${result.ok ? 'ok  ' : 'FAIL'} ${result.name} (${(result.ms / 1000).toFixed(1)} s)${result.ok ? '' : `\n       ${result.firstError}`}`,
    );
    if (!result.ok) break;
  }
  return results;
}

/**
 * `npm install <package>` as far as the project's files go: the dependency in package.json (npm
 * sorts them), with the range kop's own package.json has for it, the version linked from kop's
 * node_modules.
 */
async function addDependency(dir, argv) {
  const started = performance.now();
  const name = argv[2];
  const kopPackage = JSON.parse(await readFile(path.join(KOP_ROOT, 'package.json'), 'utf8'));
  const range = kopPackage.dependencies?.[name] ?? kopPackage.devDependencies?.[name];
  if (range === undefined)
    return {
      name: argv.join(' '),
      ok: false,
      ms: 0,
      firstError: `${name} is not a dependency of kop: add it to kop's devDependencies so the tutorial's project can link it`,
    };
  const file = path.join(dir, 'package.json');
  const project = JSON.parse(await readFile(file, 'utf8'));
  const dependencies = { ...project.dependencies, [name]: range };
  project.dependencies = Object.fromEntries(
    Object.keys(dependencies)
      .sort()
      .map((key) => [key, dependencies[key]]),
  );
  await writeFile(file, `${JSON.stringify(project, null, 2)}\n`);
  return { name: argv.join(' '), ok: true, ms: performance.now() - started };
}

async function run(file, args, cwd, timeout = COMMAND_TIMEOUT_MS, env = {}) {
  const started = performance.now();
  const result = await execa(file, args, {
    cwd,
    reject: false,
    stdin: 'ignore',
    timeout,
    env: { NO_COLOR: '1', CI: 'true', FORCE_COLOR: '0', ...env, SOURCE_DATE_EPOCH },
  });
  const ok = result.exitCode === 0 && !result.timedOut;
  return {
    ok,
    ms: performance.now() - started,
    firstError: ok
      ? undefined
      : result.timedOut
        ? `timed out after ${timeout / 1000} s`
        : firstErrorLine(result.stderr ?? '', result.stdout ?? ''),
  };
}

async function check(name, action, log) {
  const result = await action();
  log(
    `${result.ok ? 'ok  ' : 'FAIL'} [${name}] (${(result.ms / 1000).toFixed(1)} s)${result.ok ? '' : `\n       ${result.firstError}`}`,
  );
  return { name, ok: result.ok, ms: result.ms, firstError: result.firstError };
}

/** Every file under `root` (relative paths, `/`-separated), leaving out NOT_COMPARED at the top. */
export async function listFiles(root) {
  /** @type {string[]} */
  const files = [];
  const walk = async (relative) => {
    for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (relative === '' && NOT_COMPARED.includes(entry.name)) continue;
      if (entry.isDirectory()) await walk(child);
      else files.push(child);
    }
  };
  if (existsSync(root)) await walk('');
  return files.sort();
}

/**
 * How the project in `actual` differs from the committed one in `expected`: files only in one,
 * and files whose content differs, with the first line that does.
 */
export async function compareTrees(actual, expected) {
  if (!existsSync(expected)) return [`${path.relative(KOP_ROOT, expected)} does not exist`];
  const [mine, theirs] = await Promise.all([listFiles(actual), listFiles(expected)]);
  const differences = [];
  for (const file of mine) if (!theirs.includes(file)) differences.push(`only in the new project: ${file}`);
  for (const file of theirs) if (!mine.includes(file)) differences.push(`only in the committed project: ${file}`);
  for (const file of mine.filter((f) => theirs.includes(f))) {
    const [a, b] = await Promise.all([readFile(path.join(actual, file)), readFile(path.join(expected, file))]);
    if (a.equals(b)) continue;
    const linesA = a.toString('utf8').split('\n');
    const linesB = b.toString('utf8').split('\n');
    const at = linesA.findIndex((line, i) => line !== linesB[i]);
    const line = at === -1 ? linesA.length : at;
    differences.push(
      `differs: ${file} at line ${line + 1}\n         new:       ${JSON.stringify(linesA[line] ?? '(end of file)')}\n         committed: ${JSON.stringify(linesB[line] ?? '(end of file)')}`,
    );
  }
  return differences;
}

/** Replaces testdata/tutorials/<name>/ with the project in `dir`, what NOT_COMPARED names aside. */
async function writeCommitted(name, dir) {
  const target = path.join(TESTDATA, name);
  await rm(target, { recursive: true, force: true });
  for (const file of await listFiles(dir)) {
    await mkdir(path.dirname(path.join(target, file)), { recursive: true });
    await cp(path.join(dir, file), path.join(target, file));
  }
}

/**
 * What is wrong with a tutorial's page: a `run` command no line of its sh blocks shows, and a snippet
 * include (`<<< @/../<file>#<region>`, VitePress's `@` being the docs' source root, docs/) naming a
 * file that does not exist or a region the file does not mark with `#region <name>`. `edit` changes
 * the page's text first (tests).
 */
export async function pageProblems(name, edit = (page) => page) {
  const file = path.join(KOP_ROOT, TUTORIALS[name].page);
  if (!existsSync(file)) return [`the page ${TUTORIALS[name].page} does not exist`];
  const page = edit(await readFile(file, 'utf8'));
  // A command is shown when a line of a ```sh block is the command, alone or with more flags
  // after it (`kop build-installer --image $IMG`), run as `kop` or `npx kop`.
  const shellLines = [...page.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap(([, block]) =>
    block.split('\n').map((line) => line.trim().replace(/^npx /, '')),
  );
  const shown = (command) => shellLines.some((line) => line === command || line.startsWith(`${command} `));
  const commands = new Set(TUTORIALS[name].steps.filter((step) => 'run' in step).map((step) => step.run.join(' ')));
  const problems = [...commands]
    .filter((command) => !shown(command))
    .map((command) => `does not show the command in a sh block: ${command}`);
  for (const [, include, region] of page.matchAll(/^<<< @\/([^\s#{]+)(?:#([\w*-]+))?/gm)) {
    const target = path.join(KOP_ROOT, 'docs', include);
    if (!existsSync(target)) {
      problems.push(`includes a file that does not exist: ${path.relative(KOP_ROOT, target)}`);
      continue;
    }
    if (region === undefined) continue;
    const lines = (await readFile(target, 'utf8')).split('\n').map((line) => line.trim());
    const marked = (tag) => lines.some((line) => new RegExp(`^(//|#) ?#${tag} ${region}$`).test(line));
    if (!marked('region') || !marked('endregion'))
      problems.push(`includes a region ${path.relative(KOP_ROOT, target)} does not mark: #${region}`);
  }
  return problems;
}

/** One line per step and check with its time, and the total a reader waits for the commands. */
export function formatTimes(result) {
  const rows = [...result.steps, ...result.checks].map(
    (s) => `${s.ok ? 'ok  ' : 'FAIL'} ${(s.ms / 1000).toFixed(1).padStart(6)} s  ${s.name}`,
  );
  const commands = result.steps.reduce((sum, s) => sum + s.ms, 0);
  const checks = result.checks.reduce((sum, s) => sum + s.ms, 0);
  return `${rows.join('\n')}\n       ${(commands / 1000).toFixed(1)} s for the commands, ${(checks / 1000).toFixed(1)} s for build, lint and test`;
}
