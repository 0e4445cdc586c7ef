import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findControlPlaneBinaries, startControlPlane } from '../../src/testing/index.js';
import { runDockerBuild } from '../helpers/dockerfile-build.js';
import { expectScaffoldDependencies, KOP_ROOT, requireBuilt, sharedPackEnv } from '../helpers/cli-project.js';

/**
 * A new user's path with kop as it is distributed: a tarball made by `npm pack` of this repository.
 * `npx -p kop-<v>.tgz kop init` makes a project that carries kop in `.kop/`; the project is copied
 * to other folders (as a git clone would be: no node_modules), the tarball and npx's copy of kop
 * are deleted, and there `npm ci` installs it and `npm test` passes, and the Dockerfile's build
 * (its stages replayed without a container engine: npm ci, build, bundle) makes a bundle that
 * reconciles the sample on a real control plane. Also: `npm i kop.tgz && npx kop init --force`
 * does not make the project depend on itself. Other packages come from the npm cache or registry;
 * kop from nowhere but the project: npm would take a tarball whose integrity it has cached
 * instead of reading the file, so the test forgets kop's tarball from its cache before each
 * install that must read `.kop/`, and checks that the install fails without `.kop/`.
 * The three tests after the first read nothing the others write, so they run at the same time, each
 * in its own folder with its own npm cache (so one's install cannot put kop into another's cache).
 * Needs `npm run build` and `kop setup-envtest` first.
 */
const TIMEOUT = 300_000;
/**
 * npm's error for a project whose `.kop/kop-<v>.tgz` is gone: ENOENT naming it, or (npm 11 on
 * some registry states) "tarball data for kop@file:.../.kop/kop-<v>.tgz ... seems to be corrupted"
 * before an unrelated error; either way npm fails and names the missing tarball.
 */
const MISSING_KOP_TARBALL = /ENOENT[^]*\.kop\/kop-|kop@file:\S*\.kop\/kop-\S*\.tgz[^]*corrupted/;

describe('a project made from a packed kop installs anywhere', () => {
  let parent: string;
  let kopTarball: string;
  let kopTarballName: string;
  const first = () => path.join(parent, 'first/demo');

  /**
   * An npm cache of the test's own at `<parent>/<name>`, so the test can delete npx's copy of kop
   * (<cache>/_npx) and kop's tarball without touching the user's cache. It starts as `from`'s (the
   * user's): content files (which npm never changes in place) hard-linked, the index copied;
   * without one, packages come from the registry.
   */
  async function npmCache(name: string, from: string): Promise<string> {
    const cache = path.join(parent, name);
    await mkdir(path.join(cache, '_cacache'), { recursive: true });
    for (const [part, flags] of [
      ['content-v2', '-al'],
      ['index-v5', '-r'],
    ] as const) {
      const source = path.join(from, '_cacache', part);
      if (existsSync(source)) await execa('cp', [flags, source, path.join(cache, '_cacache', part)], { reject: false });
    }
    return cache;
  }
  let firstCache: string;

  // Not prefer-offline: a lockfile without download addresses (omit-lockfile-registry-resolved)
  // makes npm ci read each package's metadata, and a cached copy from before a release lacks
  // the version the lockfile names (ETARGET). Tarballs still come from the cache.
  const envOf = (cache: string) => ({
    NO_COLOR: '1',
    CI: 'true',
    npm_config_cache: cache,
    npm_config_update_notifier: 'false',
  });
  const run = (file: string, args: string[], cwd: string, cache: string) =>
    execa(file, args, { cwd, reject: false, env: envOf(cache), stdin: 'ignore' });
  const npm = (args: string[], cwd: string, cache: string) => run('npm', args, cwd, cache);

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/runtime/index.js', 'dist/testing/index.js']);
    parent = await mkdtemp(path.join(tmpdir(), 'kop-e2e-packed-'));
    const userCache = (await execa('npm', ['config', 'get', 'cache'])).stdout.trim();
    firstCache = await npmCache('npm-cache', userCache);
    // `npm pack` of this repository; in the e2e run, the run's one pack of it (sharedPackEnv).
    const pack = await execa('npm', ['pack', KOP_ROOT, '--pack-destination', parent, '--json', '--ignore-scripts'], {
      cwd: parent,
      reject: false,
      stdin: 'ignore',
      env: { ...envOf(firstCache), ...sharedPackEnv() },
    });
    expect(pack.exitCode, pack.stderr).toBe(0);
    kopTarballName = (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename;
    kopTarball = path.join(parent, kopTarballName);
    expect(kopTarballName).toMatch(/^kop-\d+\.\d+\.\d+.*\.tgz$/);
  }, TIMEOUT);

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  /** Deletes the tarball with `integrity` (a sha512 from a lockfile) from the npm cache `cache`. */
  async function forgetFromCache(integrity: string, cache: string): Promise<void> {
    const hex = Buffer.from(integrity.replace(/^sha512-/, ''), 'base64').toString('hex');
    await rm(path.join(cache, '_cacache/content-v2/sha512', hex.slice(0, 2), hex.slice(2, 4), hex.slice(4)), {
      force: true,
    });
  }
  const kopIntegrity = async (project: string): Promise<string> =>
    JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8')).packages['node_modules/kop']
      .integrity as string;

  it(
    'npx -p kop-<v>.tgz kop init packs kop into .kop/ and depends on it by a relative path',
    async () => {
      await mkdir(first(), { recursive: true });
      const init = await npm(
        [
          'exec',
          '--yes',
          `--package=${kopTarball}`,
          '--',
          'kop',
          'init',
          '--domain',
          'example.com',
          '--project-name',
          'demo',
          '--owner',
          'Demo',
          '--yes',
        ],
        first(),
        firstCache,
      );
      expect(init.exitCode, init.stdout + init.stderr).toBe(0);
      expect(init.stdout).toContain(`CREATE .kop/${kopTarballName}`);
      expect(init.stdout).toMatch(/RUN {4}npm install[^]*DONE {3}npm install/);

      const spec = `file:.kop/${kopTarballName}`;
      const pkg = JSON.parse(await readFile(path.join(first(), 'package.json'), 'utf8'));
      expectScaffoldDependencies(pkg.dependencies, spec);
      expect(await readFile(path.join(first(), 'PROJECT'), 'utf8')).toContain(`kopSource: ${spec}\n`);
      // The packed kop is the kop that ran: the same bytes npm pack made.
      expect(await readFile(path.join(first(), '.kop', kopTarballName))).toEqual(await readFile(kopTarball));
      const lock = JSON.parse(await readFile(path.join(first(), 'package-lock.json'), 'utf8'));
      expect(lock.packages['node_modules/kop']).toMatchObject({
        resolved: spec,
        integrity: expect.stringMatching(/^sha512-/),
      });
      // Nothing names a path of this machine: not the tarball's folder, not npx's cache.
      for (const file of ['package.json', 'package-lock.json', 'PROJECT', 'README.md', 'Dockerfile']) {
        const text = await readFile(path.join(first(), file), 'utf8');
        expect(text, file).not.toContain(parent);
        expect(text, file).not.toContain('_npx');
      }
      // The project's own kop, from its node_modules, runs the next command.
      const api = await npm(
        [
          'exec',
          '--',
          'kop',
          'create',
          'api',
          '--group',
          'cache',
          '--version',
          'v1alpha1',
          '--kind',
          'RedisCluster',
          '--yes',
        ],
        first(),
        firstCache,
      );
      expect(api.exitCode, api.stderr).toBe(0);
      const generate = await npm(['run', 'generate'], first(), firstCache);
      expect(generate.exitCode, generate.stderr).toBe(0);
    },
    TIMEOUT,
  );

  describe('copied to other folders without the tarball or npx cache', () => {
    const copy = (name: string) => path.join(parent, name, 'demo');
    /** Each test's npm cache: the first test's (packages it fetched included), without npx's copy of kop. */
    const caches: Record<'ci' | 'image' | 'install', string> = { ci: '', image: '', install: '' };
    /** kop's tarball, taken from the project (the one npm pack made is deleted). */
    let tarballCopy: string;

    beforeAll(async () => {
      for (const name of ['second', 'image-context']) {
        await mkdir(copy(name), { recursive: true });
        await cp(first(), copy(name), {
          recursive: true,
          filter: (source) => !source.split(path.sep).includes('node_modules'),
        });
      }
      // kop is now reachable from the projects only.
      await rm(kopTarball);
      await rm(path.join(firstCache, '_npx'), { recursive: true, force: true });
      await rm(first(), { recursive: true, force: true });
      tarballCopy = path.join(parent, 'tarball', kopTarballName);
      await mkdir(path.dirname(tarballCopy));
      await cp(path.join(copy('second'), '.kop', kopTarballName), tarballCopy);
      caches.ci = firstCache;
      caches.image = await npmCache('npm-cache-image', firstCache);
      caches.install = await npmCache('npm-cache-install', firstCache);
    }, TIMEOUT);

    it.concurrent(
      'npm ci installs kop from .kop/, and the project passes its tests',
      async ({ expect }) => {
        const second = copy('second');
        const cache = caches.ci;
        await forgetFromCache(await kopIntegrity(second), cache);

        // Without .kop/ there is no kop to install: the install below reads it from there.
        await rename(path.join(second, '.kop'), path.join(parent, 'kop-folder-aside'));
        const without = await npm(['ci', '--no-audit', '--no-fund'], second, cache);
        expect(without.exitCode, without.stdout).not.toBe(0);
        expect(without.stderr).toMatch(MISSING_KOP_TARBALL);
        await rename(path.join(parent, 'kop-folder-aside'), path.join(second, '.kop'));

        const ci = await npm(['ci', '--no-audit', '--no-fund'], second, cache);
        expect(ci.exitCode, ci.stdout + ci.stderr).toBe(0);
        expect(JSON.parse(await readFile(path.join(second, 'node_modules/kop/package.json'), 'utf8')).name).toBe('kop');
        const version = await npm(['exec', '--', 'kop', 'version'], second, cache);
        expect(version.stdout).toMatch(/^kop \d+\.\d+\.\d+/);

        // `npm test` runs `kop generate` (pretest) with the kop npm ci installed, then the tests; the
        // build (tsc) of these same sources with the same lockfile is the Dockerfile's, in the next test.
        const test = await npm(['test'], second, cache);
        expect(test.exitCode, test.stdout + test.stderr).toBe(0);
        expect(test.stdout).toMatch(/Tests\s+\d+ passed/);
        expect(test.stdout).toContain('rediscluster.controller.test.ts');
      },
      TIMEOUT,
    );

    it.concurrent(
      "the Dockerfile's build (npm ci from the lockfile, build, bundle) makes a bundle that reconciles the sample on a control plane",
      async ({ expect }) => {
        const context = copy('image-context');
        const cache = caches.image;
        const env = envOf(cache);
        const dockerfile = await readFile(path.join(context, 'Dockerfile'), 'utf8');
        expect(dockerfile).toMatch(/^RUN npm ci\b/m);
        expect(dockerfile).not.toMatch(/npm (install|pkg set)/);
        const pkg = JSON.parse(await readFile(path.join(context, 'package.json'), 'utf8'));
        expect(pkg.scripts['docker-build']).toBe('docker build -t ${IMG:-controller:latest} .');

        // The build context is the project without node_modules, dist and the rest .dockerignore
        // leaves out; kop must come from the .kop/ the Dockerfile copies: without that COPY, npm ci fails.
        await forgetFromCache(await kopIntegrity(context), cache);
        const withoutCopy = path.join(parent, 'context-without-kop');
        await cp(context, withoutCopy, {
          recursive: true,
          filter: (source) => !source.split(path.sep).includes('node_modules'),
        });
        await writeFile(path.join(withoutCopy, 'Dockerfile'), dockerfile.replace(/^COPY \.kop\/ \.kop\/\n/m, ''));
        await expect(runDockerBuild(withoutCopy, path.join(parent, 'image-without-kop'), env)).rejects.toThrow(
          new RegExp(`RUN npm ci [^]*failed[^]*(?:${MISSING_KOP_TARBALL.source})`),
        );

        await forgetFromCache(await kopIntegrity(context), cache);
        // kop dev's session shares .kop/; .dockerignore keeps it (a kubeconfig among it) out of the image build.
        await mkdir(path.join(context, '.kop/dev'), { recursive: true });
        await writeFile(path.join(context, '.kop/dev/kubeconfig'), 'apiVersion: v1\nkind: Config\n');
        const scratch = path.join(parent, 'image');
        const image = await runDockerBuild(context, scratch, env);
        expect(await readdir(path.join(image.buildDir, '.kop'))).toEqual([kopTarballName]);
        // What the image gets: the bundle alone, no node_modules.
        const appFiles = await readdir(image.appDir);
        expect(appFiles).toContain('main.mjs');
        expect(appFiles.filter((file) => !/\.mjs(\.map)?$/.test(file))).toEqual([]);
        expect(image.entrypoint).toEqual(['/nodejs/bin/node', '--max-semi-space-size=1', 'main.mjs']);
        const npmCi = image.runs.find((step) => step.command.startsWith('npm ci'))!;
        expect(npmCi.stdout + npmCi.stderr).not.toContain('npm notice');

        const kubectlPath = findControlPlaneBinaries().kubectl;
        expect(kubectlPath, 'kubectl from `kop setup-envtest`').toBeDefined();
        const plane = await startControlPlane({ crds: [path.join(context, 'config/crd/bases')] });
        const manager = execa(
          process.execPath,
          [
            ...image.entrypoint.slice(1),
            '--kubeconfig',
            plane.kubeconfigPath,
            '--health-probe-bind-address',
            '127.0.0.1:0',
            '--metrics-bind-address',
            '0',
          ],
          {
            cwd: image.appDir,
            reject: false,
            env: { NO_COLOR: '1' },
          },
        );
        let logs = '';
        manager.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
        manager.stderr!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
        try {
          const kubectl = (args: string[]) =>
            execa(kubectlPath!, ['--kubeconfig', plane.kubeconfigPath, ...args], { cwd: context, reject: false });
          const applied = await kubectl(['apply', '-k', 'config/samples']);
          expect(applied.exitCode, applied.stderr).toBe(0);
          let ready: { status?: string; observedGeneration?: number } | undefined;
          for (let attempt = 0; attempt < 120 && ready?.status !== 'True'; attempt++) {
            await new Promise((resolve) => setTimeout(resolve, 250));
            const got = await kubectl([
              'get',
              'redisclusters.cache.example.com',
              'rediscluster-sample',
              '-n',
              'default',
              '-o',
              'json',
            ]);
            const conditions = (JSON.parse(got.stdout || '{}').status?.conditions ?? []) as {
              type: string;
              status: string;
              observedGeneration?: number;
            }[];
            ready = conditions.find((condition) => condition.type === 'Ready');
          }
          expect(ready, `no Ready condition; manager output:\n${logs}`).toMatchObject({
            status: 'True',
            observedGeneration: 1,
          });
        } finally {
          manager.kill('SIGTERM');
          const exit = await manager;
          await plane.stop();
          expect(exit.exitCode, logs).toBe(0);
        }
      },
      TIMEOUT,
    );

    it.concurrent(
      'npm i kop.tgz && npx kop init --force does not make the project depend on itself, npm install keeps working, and re-packing the same kop changes nothing',
      async ({ expect }) => {
        const cache = caches.install;
        const dir = path.join(parent, 'third/op');
        await mkdir(dir, { recursive: true });
        const tarball = path.join(parent, 'third', kopTarballName);
        await cp(tarballCopy, tarball);
        await writeFile(path.join(dir, 'package.json'), '{ "name": "op", "version": "1.0.0", "private": true }\n');
        const install = await npm(['install', '--no-audit', '--no-fund', tarball], dir, cache);
        expect(install.exitCode, install.stderr).toBe(0);
        expect(JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')).dependencies.kop).toMatch(/^file:/);

        const init = await npm(
          ['exec', '--', 'kop', 'init', '--force', '--domain', 'example.com', '--yes'],
          dir,
          cache,
        );
        expect(init.exitCode, init.stdout + init.stderr).toBe(0);
        const spec = `file:.kop/${kopTarballName}`;
        expectScaffoldDependencies(
          JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')).dependencies,
          spec,
        );
        expect(await readFile(path.join(dir, '.kop', kopTarballName))).toEqual(await readFile(tarball));

        const again = await npm(['install', '--no-audit', '--no-fund'], dir, cache);
        expect(again.exitCode, again.stderr).toBe(0);
        expect(
          JSON.parse(await readFile(path.join(dir, 'package-lock.json'), 'utf8')).packages['node_modules/kop'].resolved,
        ).toBe(spec);
        // And a second init --force, with nothing new, changes nothing.
        const rerun = await npm(['exec', '--', 'kop', 'init', '--force', '--skip-install', '--yes'], dir, cache);
        expect(rerun.exitCode, rerun.stderr).toBe(0);
        expect(rerun.stdout).toMatch(/^no changes$/m);
        // So does update-pack with the project's own kop: npm pack makes the same bytes again.
        const update = await npm(['exec', '--', 'kop', 'update-pack'], dir, cache);
        expect(update.exitCode, update.stderr).toBe(0);
        expect(update.stdout.trim()).toBe('no changes');
      },
      TIMEOUT,
    );
  });
});
