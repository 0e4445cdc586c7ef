import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import https from 'node:https';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findControlPlaneBinary } from '../../src/testing/binaries.js';
import { expectScaffoldDependencies, KOP_BIN, requireBuilt, sharedPackEnv } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/** git without the user's or the system's configuration (a global excludes file could ignore *.tgz). */
const GIT_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

/**
 * End to end, as a new user: the built CLI (bin/kop.js -> dist/) scaffolds a project,
 * installs it from the registry with kop packed into the project, builds, tests, type-checks,
 * bundles and runs it. One `npm install` (run by `kop init` itself) serves every test.
 * Needs `npm run build` first; it builds nothing itself.
 */
const TIMEOUT = 300_000;

/** kubectl as kop/testing finds it (KUBEBUILDER_ASSETS, the `kop setup-envtest` cache, ...); undefined when absent. */
function kubectlPath(): string | undefined {
  try {
    return findControlPlaneBinary('kubectl');
  } catch {
    return undefined;
  }
}

describe('kop init end to end', () => {
  let parent: string;
  let project: string;

  beforeAll(async () => {
    requireBuilt();
    parent = await mkdtemp(path.join(tmpdir(), 'kop-e2e-'));
    project = path.join(parent, 'demo');
    await mkdir(project);
    const init = await execa('node', [KOP_BIN, 'init', '--domain', 'example.com', '--project-name', 'demo', '--yes'], {
      cwd: project,
      reject: false,
      // In the e2e project, the run's one `npm pack` of kop; the install is npm's own, from the registry.
      env: { NO_COLOR: '1', ...sharedPackEnv() },
    });
    expect(init.exitCode, `kop init failed:\n${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).toMatch(/CREATE src\/main\.ts[^]*RUN {4}npm install[^]*DONE {3}npm install/);
  }, TIMEOUT);

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  const npm = (args: string[]) =>
    execa('npm', args, { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });

  it(
    'builds, and the manager really runs: --help, health probes, clean SIGTERM',
    async () => {
      const build = await npm(['run', 'build']);
      expect(build.exitCode, build.stderr + build.stdout).toBe(0);

      const help = await execa('node', ['dist/src/main.js', '--help'], { cwd: project, reject: false });
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toMatch(
        /--metrics-bind-address[^]*--health-probe-bind-address[^]*--leader-elect[^]*--kubeconfig/,
      );

      const bad = await execa('node', ['dist/src/main.js', '--nope'], { cwd: project, reject: false });
      expect(bad.exitCode).toBe(2);

      // Metrics are HTTPS by default (a self-signed certificate) and answer 401 without a token;
      // --metrics-secure=false serves them over plain HTTP.
      for (const secure of [true, false]) {
        const manager = execa(
          'node',
          [
            'dist/src/main.js',
            '--health-probe-bind-address',
            '127.0.0.1:0',
            '--metrics-bind-address',
            '127.0.0.1:0',
            ...(secure ? [] : ['--metrics-secure=false']),
          ],
          {
            cwd: project,
            reject: false,
          },
        );
        const ports = await new Promise<{ probes: number; metrics: number }>((resolve, reject) => {
          let seen = '';
          const found: Record<string, number> = {};
          manager.stdout!.on('data', (chunk: Buffer) => {
            seen += chunk.toString();
            for (const line of seen.split('\n')) {
              const match = /"msg":"serving (health probes|metrics)".*"port":(\d+)/.exec(line);
              if (match) found[match[1]!] = Number(match[2]);
            }
            if (found['health probes'] && found.metrics)
              resolve({ probes: found['health probes'], metrics: found.metrics });
          });
          manager.once('exit', () => reject(new Error(`manager exited early:\n${seen}`)));
        });
        expect((await fetch(`http://127.0.0.1:${ports.probes}/healthz`)).status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${ports.probes}/readyz`)).status).toBe(200);
        if (secure) {
          expect(await httpsStatus(ports.metrics, '/metrics')).toBe(401);
        } else {
          expect(await (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text()).toContain(
            'process_start_time_seconds',
          );
        }
        manager.kill('SIGTERM');
        expect((await manager).exitCode).toBe(0);
      }
    },
    TIMEOUT,
  );

  it(
    'npm test passes out of the box',
    async () => {
      const test = await npm(['test']);
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toMatch(/Tests\s+\d+ passed/);
    },
    TIMEOUT,
  );

  it(
    'tsc --noEmit passes on the whole project (src, api, test)',
    async () => {
      const checked = await tsc(['--noEmit', '-p', 'tsconfig.json'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'bundles the manager into bundle/, which runs without node_modules and keeps what is loaded on demand out of main.mjs',
    async () => {
      const bundle = await npm(['run', 'bundle']);
      expect(bundle.exitCode, bundle.stderr).toBe(0);
      const copy = path.join(parent, 'image');
      await cp(path.join(project, 'bundle'), copy, { recursive: true });
      const help = await execa('node', ['main.mjs', '--help'], { cwd: copy, reject: false });
      expect(help.exitCode, help.stderr).toBe(0);
      expect(help.stdout).toContain('Usage: demo');
      // @kubernetes/client-node's whole library (some 15 MB, for the oidc/azure/gcp auth providers
      // only) is a file of its own: inside main.mjs its source would stay in every manager's memory.
      expect((await stat(path.join(copy, 'main.mjs'))).size).toBeLessThan(2_000_000);
    },
    TIMEOUT,
  );

  it(
    'depends on kop packed into the project, which the lockfile, .gitignore and the Dockerfile agree on',
    async () => {
      // The image build's own steps are run in test/e2e/packed-project.test.ts.
      const [tarball] = await readdir(path.join(project, '.kop'));
      expect(tarball).toMatch(/^kop-\d+\.\d+\.\d+.*\.tgz$/);
      const spec = `file:.kop/${tarball}`;
      expectScaffoldDependencies(
        JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')).dependencies,
        spec,
      );
      expect(
        JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8')).packages['node_modules/kop']
          .resolved,
      ).toBe(spec);
      await execa('git', ['init', '-q'], { cwd: project, env: GIT_ENV });
      expect(
        (await execa('git', ['check-ignore', '-q', `.kop/${tarball}`], { cwd: project, reject: false, env: GIT_ENV }))
          .exitCode,
        '.kop/ tarball ignored by git',
      ).toBe(1);
      expect(await readFile(path.join(project, 'Dockerfile'), 'utf8')).toMatch(/^COPY \.kop\/ \.kop\/\nRUN npm ci /m);
      expect(existsSync(path.join(project, 'node_modules/kop/dist/cli/main.js'))).toBe(true);
    },
    TIMEOUT,
  );

  it.skipIf(!kubectlPath())(
    'config/default and config/samples build with kustomize (kubectl found as kop/testing finds it; run `kop setup-envtest`)',
    async () => {
      const kubectl = kubectlPath()!;
      const all = await execa(kubectl, ['kustomize', 'config/default'], { cwd: project, reject: false });
      expect(all.exitCode, all.stderr).toBe(0);
      expect(all.stdout).toMatch(/kind: Deployment[^]*name: demo-controller-manager[^]*namespace: demo-system/);
      const samples = await execa(kubectl, ['kustomize', 'config/samples'], { cwd: project, reject: false });
      expect(samples.exitCode, samples.stderr).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'a second init refuses and writes nothing; --dry-run elsewhere writes nothing',
    async () => {
      const before = await readdir(project);
      const again = await execa('node', [KOP_BIN, 'init', '--yes', '--skip-install'], { cwd: project, reject: false });
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toMatch(/^error: .*already has a PROJECT/);
      expect(await readdir(project)).toEqual(before);

      const empty = path.join(parent, 'dry');
      await mkdir(empty);
      const dry = await execa('node', [KOP_BIN, 'init', '--dry-run', '--yes'], {
        cwd: empty,
        reject: false,
        env: sharedPackEnv(),
      });
      expect(dry.exitCode).toBe(0);
      expect(dry.stdout).toMatch(/CREATE package\.json[^]*would run: npm install\ndry run: nothing was written/);
      expect(await readdir(empty)).toEqual([]);

      const bad = await execa('node', [KOP_BIN, 'init', '--project-name', 'Bad_Name', '--yes'], {
        cwd: empty,
        reject: false,
      });
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/must be a DNS-1123 label/);
    },
    TIMEOUT,
  );
});

/** The status of a GET over HTTPS to 127.0.0.1 (the certificate is self-signed: not verified). */
function httpsStatus(port: number, requestPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: requestPath, rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}
