import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KOP_BIN, KOP_ROOT, requireBuilt, sharedPackEnv } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * `kop alpha update` from a real older kop: this kop copied with version 0.0.9 and two template
 * lines of its own (a comment in src/main.ts, the Ready message of the reconciler), packed by npm.
 * That old kop scaffolds a project (init packs it into .kop/kop-0.0.9.tgz, PROJECT records
 * cliVersion 0.0.9); the user edits the reconciler and main.ts; this kop's `alpha update` rebuilds
 * the base by running kop 0.0.9 from the project's tarball and merges. Then the conflict is
 * resolved, and the project builds and passes its tests with this kop. The old kop's package.json
 * had another lint script and @types/node range: a user's added dependencies and script are merged
 * with them by keys, and npm writes package-lock.json anew (or, offline, leaves it as it was and
 * says so). A second old kop without
 * `alpha generate` (an older CLI) is replayed command by command with --from.
 * Needs `npm run build` and `kop setup-envtest` (the reconciler test starts a control plane).
 */
const TIMEOUT = 300_000;
const OLD_VERSION = '0.0.9';
const NEW_VERSION = JSON.parse(await readFile(path.join(KOP_ROOT, 'package.json'), 'utf8')).version as string;
const MAIN_COMMENT_NEW = '  // JSON lines in a container or when piped, readable lines on a terminal.';
const MAIN_COMMENT_OLD = '  // Logs as JSON lines (kop 0.0.9 wrote this comment).';
const MESSAGE_NEW = '      message: `{{kind}} is reconciled at generation ${generation ?? 0}`,';
const MESSAGE_OLD = '      message: `{{kind}} reconciled (kop 0.0.9)`,';
// package.json lines the old kop scaffolded differently: a script and a devDependency's range.
const LINT_NEW = '    "lint": "eslint .",';
const LINT_OLD = '    "lint": "eslint src",';
const TYPES_NODE_NEW = '    "@types/node": "^24.10.0",';
// Another major: the lockfile cannot keep its @types/node, so npm needs its registry to write it anew.
const TYPES_NODE_OLD = '    "@types/node": "^22.0.0",';

describe('kop alpha update keeps your edits', () => {
  let parent: string;
  let project: string;
  let pristine: string;
  // Every `alpha update` packs this kop into the project; in the e2e project that is the run's one pack.
  const env = { NO_COLOR: '1', CI: 'true', ...sharedPackEnv() };
  const node = (args: string[], cwd: string) =>
    execa(process.execPath, args, { cwd, reject: false, env, stdin: 'ignore' });
  const read = (file: string) => readFile(path.join(project, file), 'utf8');

  /** This kop, copied with the old version and the old template lines; `withAlpha: false` drops its alpha commands. */
  async function makeOldKop(dir: string, options: { withAlpha: boolean }): Promise<void> {
    await mkdir(dir, { recursive: true });
    for (const part of ['bin', 'dist', 'templates', 'envtest'])
      await cp(path.join(KOP_ROOT, part), path.join(dir, part), { recursive: true });
    const manifest = JSON.parse(await readFile(path.join(KOP_ROOT, 'package.json'), 'utf8'));
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ ...manifest, version: OLD_VERSION }, null, 2));
    const replaceIn = async (file: string, from: string, to: string) => {
      const text = await readFile(path.join(dir, file), 'utf8');
      expect(text, file).toContain(from);
      await writeFile(path.join(dir, file), text.replace(from, to));
    };
    await replaceIn('templates/init/src/main.ts.hbs', MAIN_COMMENT_NEW, MAIN_COMMENT_OLD);
    await replaceIn(
      'templates/api/controller/src/controllers/__controllerStem__.controller.ts.hbs',
      MESSAGE_NEW,
      MESSAGE_OLD,
    );
    await replaceIn('templates/init/package.json.hbs', LINT_NEW, LINT_OLD);
    await replaceIn('templates/init/package.json.hbs', TYPES_NODE_NEW, TYPES_NODE_OLD);
    if (!options.withAlpha) {
      await replaceIn('dist/commands/index.js', "import * as alpha from './alpha.js';", '');
      await replaceIn('dist/commands/index.js', '    alpha,\n', '');
      await rm(path.join(dir, 'dist/commands/alpha.js'));
    }
    await symlink(path.join(KOP_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  }

  /** kop's dependencies and this kop linked into the project's node_modules, as npm install would (without a registry). */
  async function linkModules(dir: string): Promise<void> {
    await mkdir(path.join(dir, 'node_modules'));
    for (const entry of await readdir(path.join(KOP_ROOT, 'node_modules'))) {
      if (entry !== '.cache' && entry !== 'kop')
        await symlink(path.join(KOP_ROOT, 'node_modules', entry), path.join(dir, 'node_modules', entry), 'dir');
    }
    await symlink(KOP_ROOT, path.join(dir, 'node_modules/kop'), 'dir');
  }

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/runtime/index.js', 'dist/testing/index.js', 'dist/commands/alpha.js']);
    parent = await mkdtemp(path.join(tmpdir(), 'kop-e2e-upgrade-'));
    const oldKop = path.join(parent, 'old-kop');
    await makeOldKop(oldKop, { withAlpha: true });
    project = path.join(parent, 'demo');
    await mkdir(project);
    const oldBin = path.join(oldKop, 'bin/kop.js');
    // The old kop scaffolds the project and packs itself into it, as kop init does.
    for (const args of [
      ['init', '--domain', 'example.com', '--project-name', 'demo', '--owner', 'Demo', '--skip-install', '--yes'],
      ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'RedisCluster', '--yes'],
      ['generate'],
    ]) {
      const result = await node([oldBin, ...args], project);
      expect(result.exitCode, `${args.join(' ')}: ${result.stdout}\n${result.stderr}`).toBe(0);
    }
    pristine = path.join(parent, 'pristine/demo');
    await cp(project, pristine, { recursive: true });
    await cp(project, path.join(parent, 'dependencies/demo'), { recursive: true });
  }, TIMEOUT);

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it('the old kop recorded itself in PROJECT and packed itself into .kop/', async () => {
    expect(await read('PROJECT')).toContain(`cliVersion: ${OLD_VERSION}\n`);
    expect(await read('PROJECT')).toContain(`kopSource: file:.kop/kop-${OLD_VERSION}.tgz\n`);
    expect(await read('src/main.ts')).toContain(MAIN_COMMENT_OLD);
    expect(await read('src/controllers/rediscluster.controller.ts')).toContain('RedisCluster reconciled (kop 0.0.9)');
  });

  it(
    'merges: your edits kept, the new template lines taken, a conflict where both changed; then it builds and its tests pass',
    async () => {
      const controllerFile = 'src/controllers/rediscluster.controller.ts';
      const controller = await read(controllerFile);
      const myLine = '    const tier = object.spec ? "edited" : "empty"; // my own code';
      const myMessage = '      message: `my message at ${generation ?? 0}`,';
      await writeFile(
        path.join(project, controllerFile),
        controller
          .replace(
            '    const generation = object.metadata?.generation;\n',
            `    const generation = object.metadata?.generation;\n${myLine}\n    void tier;\n`,
          )
          .replace('      message: `RedisCluster reconciled (kop 0.0.9)`,', myMessage),
      );
      const main = await read('src/main.ts');
      await writeFile(
        path.join(project, 'src/main.ts'),
        main.replace(
          '  const logger = createLogger();\n',
          "  const logger = createLogger();\n  logger.info('my startup line');\n",
        ),
      );

      const dry = await node([KOP_BIN, '--dry-run', 'alpha', 'update', '--skip-install'], project);
      expect(dry.exitCode, dry.stdout + dry.stderr).toBe(0);
      expect(dry.stdout).toContain('dry run: nothing was written');
      expect(await read('PROJECT')).toContain(`cliVersion: ${OLD_VERSION}\n`);

      const update = await node([KOP_BIN, 'alpha', 'update', '--skip-install'], project);
      expect(update.exitCode, update.stdout + update.stderr).toBe(1);
      expect(update.stdout).toMatch(/MERGED +src\/main\.ts/);
      expect(update.stdout).toMatch(/CONFLICT +src\/controllers\/rediscluster\.controller\.ts \(1 conflict\)/);
      expect(update.stdout).toMatch(/merge: 1 merged, 1 with conflicts/);
      expect(update.stderr).toContain('1 file with conflicts: src/controllers/rediscluster.controller.ts');

      const merged = await read('src/main.ts');
      expect(merged).toContain("logger.info('my startup line');");
      expect(merged).toContain(MAIN_COMMENT_NEW);
      expect(merged).not.toContain(MAIN_COMMENT_OLD);
      const conflicted = await read(controllerFile);
      expect(conflicted).toContain(myLine);
      expect(conflicted).toContain(
        `<<<<<<< ours\n${myMessage}\n=======\n      message: \`RedisCluster is reconciled at generation \${generation ?? 0}\`,\n>>>>>>> kop ${NEW_VERSION}\n`,
      );

      // The dependency moved to this kop, and PROJECT records it.
      const projectFile = await read('PROJECT');
      expect(projectFile).toContain(`cliVersion: ${NEW_VERSION}\n`);
      expect(projectFile).toContain(`kopSource: file:.kop/kop-${NEW_VERSION}.tgz\n`);
      expect(JSON.parse(await read('package.json')).dependencies.kop).toBe(`file:.kop/kop-${NEW_VERSION}.tgz`);
      expect(await readdir(path.join(project, '.kop'))).toEqual([`kop-${NEW_VERSION}.tgz`]);

      // Resolved by taking kop's line; then the project generates, builds and passes its tests on this kop.
      await writeFile(
        path.join(project, controllerFile),
        conflicted.replace(/<<<<<<< ours\n[^]*?=======\n([^]*?)>>>>>>> [^\n]*\n/, '$1'),
      );
      await linkModules(project);
      const generate = await node([KOP_BIN, 'generate', '--check'], project);
      expect(generate.exitCode, generate.stdout + generate.stderr).toBe(0);
      const checked = await tsc(['-p', 'tsconfig.json', '--noEmit'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);
      const tests = await node([path.join(KOP_ROOT, 'node_modules/vitest/vitest.mjs'), 'run'], project);
      expect(tests.exitCode, tests.stdout + tests.stderr).toBe(0);
      expect(tests.stdout).toContain('rediscluster.controller.test.ts');
    },
    TIMEOUT,
  );

  it(
    'merges package.json by keys (your dependencies and script kept, kop’s changes taken) and has npm write the lockfile anew',
    async () => {
      const dir = path.join(parent, 'dependencies/demo');
      const readJson = async (where: string, file: string) =>
        JSON.parse(await readFile(path.join(where, file), 'utf8'));
      const npm = (args: string[], cwd: string, extra: Record<string, string> = {}) =>
        execa('npm', args, { cwd, reject: false, env: { ...env, ...extra }, stdin: 'ignore' });
      expect(await readFile(path.join(dir, 'package.json'), 'utf8')).toContain(LINT_OLD);
      // The user adds a dependency, a devDependency and a script, as npm install and an editor write them.
      const manifest = await readJson(dir, 'package.json');
      manifest.scripts.seed = 'node hack/seed.mjs';
      manifest.dependencies.ms = '^2.1.3';
      manifest.devDependencies = Object.fromEntries(
        Object.entries({ ...manifest.devDependencies, '@types/ms': '^2.1.0' }).sort(([a], [b]) =>
          a.localeCompare(b, 'en'),
        ),
      );
      await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      const lock = await npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], dir);
      expect(lock.exitCode, lock.stderr).toBe(0);
      const oldLock = await readFile(path.join(dir, 'package-lock.json'), 'utf8');
      expect(JSON.parse(oldLock).packages['node_modules/kop'].version).toBe(OLD_VERSION);
      const offline = path.join(parent, 'dependencies-offline/demo');
      const conflicted = path.join(parent, 'dependencies-conflict/demo');
      await cp(dir, offline, { recursive: true });
      await cp(dir, conflicted, { recursive: true });

      const update = await node([KOP_BIN, 'alpha', 'update', '--skip-install'], dir);
      expect(update.exitCode, update.stdout + update.stderr).toBe(0);
      expect(update.stdout).toMatch(/MERGED +package\.json/);
      expect(update.stdout).toContain('package-lock.json regenerated from the merged package.json');
      const merged = await readJson(dir, 'package.json');
      expect(merged.scripts).toMatchObject({ seed: 'node hack/seed.mjs', lint: 'eslint .' });
      expect(merged.dependencies).toMatchObject({ kop: `file:.kop/kop-${NEW_VERSION}.tgz`, ms: '^2.1.3' });
      expect(merged.devDependencies).toMatchObject({ '@types/ms': '^2.1.0', '@types/node': '^24.10.0' });
      // npm's layout: sorted dependency maps, two spaces, a final newline.
      expect(Object.keys(merged.devDependencies)).toEqual(
        Object.keys(merged.devDependencies).sort((a, b) => a.localeCompare(b, 'en')),
      );
      expect(await readFile(path.join(dir, 'package.json'), 'utf8')).toBe(`${JSON.stringify(merged, null, 2)}\n`);
      // The lockfile describes the merged package.json: written by npm, not merged as text.
      const newLock = await readJson(dir, 'package-lock.json');
      expect(newLock.packages[''].dependencies).toEqual(merged.dependencies);
      expect(newLock.packages[''].devDependencies).toEqual(merged.devDependencies);
      expect(newLock.packages['node_modules/kop'].version).toBe(NEW_VERSION);
      expect(newLock.packages['node_modules/ms']).toBeDefined();
      expect(JSON.parse(oldLock).packages['node_modules/@types/node'].version).toMatch(/^22\./);
      expect(newLock.packages['node_modules/@types/node'].version).toMatch(/^24\./);
      expect(JSON.stringify(newLock)).not.toContain('<<<<<<<');

      // Without a registry (npm offline, nothing cached): the merge is written, the lockfile left as it was, and said.
      const emptyCache = path.join(parent, 'empty-npm-cache');
      await mkdir(emptyCache);
      const offlineUpdate = await execa(process.execPath, [KOP_BIN, 'alpha', 'update', '--skip-install'], {
        cwd: offline,
        reject: false,
        stdin: 'ignore',
        env: { ...env, npm_config_offline: 'true', npm_config_cache: emptyCache },
      });
      expect(offlineUpdate.exitCode, offlineUpdate.stdout + offlineUpdate.stderr).toBe(0);
      expect(offlineUpdate.stderr).toContain('package-lock.json was not regenerated: npm exited with code');
      expect(offlineUpdate.stderr).toContain('run `npm install`');
      expect(await readFile(path.join(offline, 'package-lock.json'), 'utf8')).toBe(oldLock);
      expect(await readJson(offline, 'package.json')).toEqual(merged);

      // Both changed the lint script: a conflict on that key alone, which the user resolves; the lockfile is left alone.
      const mine = await readJson(conflicted, 'package.json');
      mine.scripts.lint = 'eslint src test';
      await writeFile(path.join(conflicted, 'package.json'), `${JSON.stringify(mine, null, 2)}\n`);
      const conflict = await node([KOP_BIN, 'alpha', 'update', '--skip-install'], conflicted);
      expect(conflict.exitCode, conflict.stdout + conflict.stderr).toBe(1);
      expect(conflict.stdout).toMatch(
        new RegExp(
          `CONFLICT +package\\.json \\(a key you and kop ${NEW_VERSION.replace(/\./g, '\\.')} both changed: scripts\\.lint\\)`,
        ),
      );
      expect(conflict.stderr).toContain('package.json has conflicts, so package-lock.json and node_modules are left');
      const text = await readFile(path.join(conflicted, 'package.json'), 'utf8');
      expect(text).toContain(
        `<<<<<<< ours\n    "lint": "eslint src test",\n=======\n    "lint": "eslint .",\n>>>>>>> kop ${NEW_VERSION}\n`,
      );
      const resolved = JSON.parse(text.replace(/^<<<<<<< ours\n([^]*?)^=======\n[^]*?^>>>>>>> [^\n]*\n/m, '$1'));
      expect(resolved).toEqual({ ...merged, scripts: { ...merged.scripts, lint: 'eslint src test' } });
      expect(await readFile(path.join(conflicted, 'package-lock.json'), 'utf8')).toBe(oldLock);
    },
    // npm resolves the whole tree twice (a few minutes on a busy machine with a cold cache).
    2 * TIMEOUT,
  );

  it(
    'an older kop without alpha generate is replayed command by command (--from), and an unedited project updates cleanly',
    async () => {
      const olderKop = path.join(parent, 'older-kop');
      await makeOldKop(olderKop, { withAlpha: false });
      const help = await node([path.join(olderKop, 'bin/kop.js'), '--help'], pristine);
      expect(help.exitCode, help.stderr).toBe(0);
      expect(help.stdout).toContain('create');
      // No `alpha` command (plugin names such as grafana.kubebuilder.io/v1-alpha still say alpha).
      expect(help.stdout).not.toMatch(/^\s+alpha\s/m);
      // As from a kop before cliVersion was recorded.
      const projectFile = path.join(pristine, 'PROJECT');
      await writeFile(projectFile, (await readFile(projectFile, 'utf8')).replace(/^cliVersion: .*\n/m, ''));
      const update = await node([KOP_BIN, 'upgrade', '--from', olderKop, '--skip-install'], pristine);
      expect(update.exitCode, update.stdout + update.stderr).toBe(0);
      expect(update.stdout).toMatch(/TAKEN +src\/main\.ts/);
      expect(update.stdout).toMatch(/TAKEN +src\/controllers\/rediscluster\.controller\.ts/);
      expect(update.stdout).toMatch(/merge: 0 merged, 0 with conflicts/);
      expect(update.stdout).toContain('kop generate');
      expect(await readFile(path.join(pristine, 'src/main.ts'), 'utf8')).toContain(MAIN_COMMENT_NEW);
      expect(await readFile(projectFile, 'utf8')).toContain(`cliVersion: ${NEW_VERSION}\n`);
    },
    TIMEOUT,
  );
});
