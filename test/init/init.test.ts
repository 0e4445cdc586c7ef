import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Exec } from '../../src/base/context.js';
import { KopError, UsageError } from '../../src/base/errors.js';
import { kopPackageRoot } from '../../src/base/paths.js';
import { main } from '../../src/cli/main.js';
import { generators } from '../../src/commands/generate.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { nodeEnginesNote, nodeSatisfies } from '../../src/init/node-engines.js';
import { runInit, type InitOptions } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { insertAtMarkers } from '../../src/scaffold/insert.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { fakeNpmPack } from '../helpers/fake-npm-pack.js';
import { dockerignoreMatcher } from '../helpers/dockerfile-build.js';
import { listFiles } from '../helpers/files.js';

/** git without the user's or the system's configuration (a global excludes file could ignore *.tgz). */
const GIT_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

const BASE: InitOptions = {
  domain: 'example.com',
  projectName: 'demo',
  owner: 'Example Authors',
  kopSource: 'file:../kop',
  skipInstall: true,
};

describe('kop init', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir('my-operator')));
  afterEach(() => cleanup());
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');

  it('scaffolds the layout and records the project', async () => {
    const context = testContext({ cwd: dir });
    await runInit(BASE, context);
    const files = await listFiles(dir);
    for (const file of [
      'PROJECT',
      'package.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'vitest.config.ts',
      '.gitignore',
      '.dockerignore',
      'README.md',
      'LICENSE',
      'Dockerfile',
      'src/main.ts',
      'src/flags.ts',
      'src/controllers/.gitkeep',
      'api/.gitkeep',
      'test/flags.test.ts',
      'config/default/kustomization.yaml',
      'config/manager/manager.yaml',
      'config/rbac/role.yaml',
      'config/rbac/leader_election_role.yaml',
      'config/crd/kustomization.yaml',
      'config/samples/kustomization.yaml',
      'hack/boilerplate.txt',
      'hack/bundle.mjs',
    ]) {
      expect(files).toContain(file);
    }
    const project = parseProjectFile(await read('PROJECT'));
    expect(project).toMatchObject({
      domain: 'example.com',
      projectName: 'demo',
      namespaced: false,
      kopSource: 'file:../kop',
      resources: [],
    });

    const pkg = JSON.parse(await read('package.json'));
    // Written as npm writes it back after an install (JSON.stringify), so init --force after npm install changes nothing.
    const pkgText = await read('package.json');
    expect(pkgText).toBe(`${JSON.stringify(JSON.parse(pkgText), null, 2)}\n`);
    expect(pkg.name).toBe('demo');
    expect(pkg.dependencies.kop).toBe('file:../kop');
    expect(await read('README.md')).toMatch(
      /`"kop": "file:\.\.\/kop"`[^\n]*outside this project[^\n]*run `kop update-pack`/,
    );
    expect(Object.keys(pkg.scripts)).toEqual(
      expect.arrayContaining(['build', 'start', 'test', 'manifests', 'generate', 'deploy', 'undeploy', 'docker-build']),
    );
    expect(pkg.scripts.manifests).toBe('kop generate manifests');
    expect(pkg.devDependencies).toMatchObject({
      typescript: '~5.9.3',
      vitest: expect.stringMatching(/^\^3\./),
      '@types/node': expect.stringMatching(/^\^24\./),
    });
    // The Node kop runs on (20.19 and later) installs and lints the project without EBADENGINE warnings.
    expect(pkg.engines).toEqual({ node: '^20.19.0 || ^22.13.0 || >=24' });
    for (const lowest of ['20.19.0', '22.13.0', '24.0.0']) {
      for (const tool of Object.keys(pkg.devDependencies as Record<string, string>)) {
        const engines = (
          JSON.parse(await readFile(path.join(kopPackageRoot(), 'node_modules', tool, 'package.json'), 'utf8')) as {
            engines?: { node?: string };
          }
        ).engines?.node;
        if (engines !== undefined)
          expect(nodeSatisfies(lowest, engines), `${tool} ${engines} on Node ${lowest}`).toBe(true);
      }
    }
    expect(pkg.scripts['docker-build']).toBe('docker build -t ${IMG:-controller:latest} .');

    const main = await read('src/main.ts');
    expect(main).toMatch(/^\/\/ Scaffolded by kop/);
    expect(main).toContain('// +kop:scaffold:imports');
    expect(main).toContain('  // +kop:scaffold:controllers');
    expect(context.out.lines).toContain('CREATE PROJECT');
  });

  it('writes valid Kubernetes YAML everywhere, with restricted pod security on the manager', async () => {
    await runInit(BASE, testContext({ cwd: dir }));
    // Every YAML file but the CI workflows (init-hygiene.test.ts checks those).
    const yamlFiles = (await listFiles(dir)).filter((file) => /\.ya?ml$/.test(file) && !file.startsWith('.github/'));
    expect(yamlFiles.length).toBeGreaterThanOrEqual(10);
    for (const file of yamlFiles) {
      for (const doc of parseAllDocuments(await read(file))) {
        expect(doc.errors, file).toEqual([]);
        const value = doc.toJS() as unknown;
        // kustomize's own inputs: JSON patches and replacements (lists), and a name-reference configuration.
        if (Array.isArray(value)) {
          for (const entry of value as Record<string, unknown>[]) {
            const isPatch = typeof entry.op === 'string' && typeof entry.path === 'string';
            const isReplacement = typeof entry.source === 'object' && Array.isArray(entry.targets);
            expect(isPatch || isReplacement, `${file}: ${JSON.stringify(entry)}`).toBe(true);
          }
          continue;
        }
        if (file.endsWith('/kustomizeconfig.yaml')) {
          expect(Object.keys(value as object), file).toEqual(['nameReference']);
          continue;
        }
        const object = value as Record<string, unknown>;
        expect(typeof object.apiVersion, file).toBe('string');
        expect(typeof object.kind, file).toBe('string');
        if (object.kind !== 'Kustomization') expect((object.metadata as { name?: string }).name, file).toBeTruthy();
      }
    }
    const [, deployment] = parseAllDocuments(await read('config/manager/manager.yaml')).map((doc) => doc.toJS());
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.containers[0].securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.containers[0].livenessProbe.httpGet.path).toBe('/healthz');
    expect(pod.containers[0].readinessProbe.httpGet.path).toBe('/readyz');
    expect(pod.containers[0].resources.limits).toBeDefined();
    const kustomization = parseAllDocuments(await read('config/default/kustomization.yaml'))[0]!.toJS();
    expect(kustomization).toMatchObject({
      namespace: 'demo-system',
      namePrefix: 'demo-',
      resources: ['../crd', '../rbac', '../manager', 'metrics_service.yaml'],
    });
    // The kubelet's SIGKILL must not come before the manager's own graceful deadline.
    const graceful = (pod.containers[0].args as string[]).find((arg) => arg.startsWith('--graceful-shutdown-timeout='));
    expect(graceful).toMatch(/^--graceful-shutdown-timeout=(\d+)s$/);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(Number(/(\d+)s$/.exec(graceful!)![1]) + 5);
    expect(parseAllDocuments(await read('config/rbac/role.yaml'))[0]!.toJS().kind).toBe('ClusterRole');
  });

  it('leaves a samples kustomization that accepts inserted samples', async () => {
    await runInit(BASE, testContext({ cwd: dir }));
    const inserted = insertAtMarkers(
      'config/samples/kustomization.yaml',
      await read('config/samples/kustomization.yaml'),
      [{ marker: 'samples', code: '- cache_v1alpha1_memcached.yaml' }],
    );
    expect(parseAllDocuments(inserted.content)[0]!.toJS().resources).toEqual(['cache_v1alpha1_memcached.yaml']);
  });

  it("accepts Kubebuilder's --repo <go module> and says, in one line, that it is ignored", async () => {
    let stdout = '';
    let stderr = '';
    const code = await main(
      [
        'node',
        'kop',
        'init',
        '--domain',
        'tutorial.kubebuilder.io',
        '--repo',
        'tutorial.kubebuilder.io/project',
      ].concat(['--owner', 'x', '--kop-source', 'file:../kop', '--skip-install']),
      {
        stdout: { write: (text: string) => ((stdout += text), true), isTTY: false },
        stderr: { write: (text: string) => ((stderr += text), true), isTTY: false },
        stdin: { isTTY: false },
        env: {},
        cwd: dir,
      },
    );
    expect(code, stderr).toBe(0);
    const notes = (stdout + stderr).split('\n').filter((line) => line.includes('--repo'));
    expect(notes).toEqual([
      '--repo tutorial.kubebuilder.io/project is ignored: it names a Go module, and a kop project is an npm package (its name is --project-name)',
    ]);
    expect(parseProjectFile(await read('PROJECT'))).toMatchObject({ domain: 'tutorial.kubebuilder.io' });
    expect(await read('PROJECT')).not.toContain('repo');
  });

  it('git ignores the compiled JavaScript in dist/, not the installer or the Helm chart written there', async () => {
    await runInit(BASE, testContext({ cwd: dir }));
    await execa('git', ['init', '-q'], { cwd: dir, env: GIT_ENV });
    const ignored = async (file: string) =>
      (await execa('git', ['check-ignore', '-q', '--no-index', file], { cwd: dir, reject: false, env: GIT_ENV }))
        .exitCode === 0;
    const want: Record<string, boolean> = {
      'dist/src/main.js': true,
      'dist/src/controllers/redis.controller.js.map': true,
      'dist/api/cache/v1/redis.types.d.ts': true,
      'dist/tsconfig.build.tsbuildinfo': true,
      'dist/install.yaml': false,
      'dist/chart/Chart.yaml': false,
      'dist/chart/values.yaml': false,
      'dist/chart/.kop-values-base.yaml': false,
      'dist/chart/templates/manager/manager.yaml': false,
      'bundle/main.mjs': true,
      'config/crd/bases/x.yaml': false,
    };
    const got: Record<string, boolean> = {};
    for (const file of Object.keys(want)) got[file] = await ignored(file);
    expect(got).toEqual(want);
  });

  it('--namespaced watches WATCH_NAMESPACE and uses Roles', async () => {
    await runInit({ ...BASE, namespaced: true }, testContext({ cwd: dir }));
    expect(parseProjectFile(await read('PROJECT')).namespaced).toBe(true);
    expect(parseAllDocuments(await read('config/rbac/role.yaml'))[0]!.toJS()).toMatchObject({
      kind: 'Role',
      metadata: { namespace: 'system' },
    });
    expect(parseAllDocuments(await read('config/rbac/role_binding.yaml'))[0]!.toJS().kind).toBe('RoleBinding');
    expect(await read('config/manager/manager.yaml')).toContain('name: WATCH_NAMESPACE');
    expect(await read('src/main.ts')).toContain("process.env.WATCH_NAMESPACE ?? ''");
  });

  it('--license none writes no LICENSE and marks the package UNLICENSED', async () => {
    await runInit({ ...BASE, license: 'none' }, testContext({ cwd: dir }));
    expect(await listFiles(dir)).not.toContain('LICENSE');
    expect(JSON.parse(await read('package.json')).license).toBe('UNLICENSED');
    expect(await read('hack/boilerplate.txt')).toBe('Copyright 2026 Example Authors.\n');
  });

  const refusals = [
    { name: 'a kop project', given: { file: 'PROJECT', content: 'x' }, want: /already has a PROJECT/ },
    { name: 'a package.json', given: { file: 'package.json', content: '{}' }, want: /already has a package\.json/ },
  ];
  for (const { name, given, want } of refusals) {
    it(`refuses a folder with ${name} and writes nothing; --force overrides`, async () => {
      await writeFile(path.join(dir, given.file), given.content);
      await expect(runInit(BASE, testContext({ cwd: dir }))).rejects.toThrow(want);
      expect(await listFiles(dir)).toEqual([given.file]);
      const context = testContext({ cwd: dir });
      await runInit({ ...BASE, force: true }, context);
      expect(context.out.lines).toContain(`UPDATE ${given.file}`);
    });
  }

  it('a re-run with --force over an unchanged project prints "no changes"', async () => {
    await runInit(BASE, testContext({ cwd: dir }));
    const context = testContext({ cwd: dir });
    await runInit({ ...BASE, force: true }, context);
    expect(context.out.lines[0]).toBe('no changes');
  });

  it('--force over a project with APIs keeps them in PROJECT and keeps their lines at the scaffold markers', async () => {
    await runInit(BASE, testContext({ cwd: dir }));
    await runCreateApi(
      { group: 'cache', version: 'v1alpha1', kind: 'Memcached', resource: true, controller: true },
      testContext({ cwd: dir }),
    );
    await runCreateApi(
      { group: 'web', version: 'v1', kind: 'Site', resource: true, controller: false },
      testContext({ cwd: dir }),
    );
    const before = {
      project: await read('PROJECT'),
      main: await read('src/main.ts'),
      samples: await read('config/samples/kustomization.yaml'),
    };
    const context = testContext({ cwd: dir });
    await runInit({ ...BASE, force: true }, context);
    expect(parseProjectFile(await read('PROJECT')).resources.map((r) => r.kind)).toEqual(['Memcached', 'Site']);
    expect(await read('PROJECT')).toBe(before.project);
    expect(await read('src/main.ts')).toBe(before.main);
    expect(await read('config/samples/kustomization.yaml')).toBe(before.samples);
    expect(context.out.lines).not.toContain('UPDATE PROJECT');
  });

  it('--force keeps the generated files PROJECT records, so kop generate still deletes only its own files', async () => {
    await runInit(BASE, testContext({ cwd: dir }));
    await runCreateApi(
      { group: 'cache', version: 'v1alpha1', kind: 'Memcached', resource: true, controller: false },
      testContext({ cwd: dir }),
    );
    await runGenerate(
      { check: false, generators: generators.filter((g) => g.name === 'manifests') },
      testContext({ cwd: dir }),
    );
    const recorded = parseProjectFile(await read('PROJECT')).generated;
    expect(recorded).toContain('config/crd/bases/cache.example.com_memcacheds.yaml');
    await runInit({ ...BASE, force: true }, testContext({ cwd: dir }));
    expect(parseProjectFile(await read('PROJECT')).generated).toEqual(recorded);
    // So a CRD copied here from another project, header and all, survives the next generate.
    const copied = 'config/crd/bases/other.example.com_widgets.yaml';
    await writeFile(path.join(dir, copied), '# Code generated by kop. DO NOT EDIT.\nkind: CustomResourceDefinition\n');
    await runGenerate(
      { check: false, generators: generators.filter((g) => g.name === 'manifests') },
      testContext({ cwd: dir }),
    );
    expect(await read(copied)).toContain('CustomResourceDefinition');
  });

  it('--force keeps the identity PROJECT records instead of defaults, and refuses a flag that contradicts it', async () => {
    await runInit({ ...BASE, domain: 'corp.example.org', projectName: 'billing' }, testContext({ cwd: dir }));
    const before = await read('PROJECT');
    const context = testContext({ cwd: dir });
    await runInit({ ...BASE, domain: undefined, projectName: undefined, force: true }, context);
    expect(await read('PROJECT')).toBe(before);
    expect(JSON.parse(await read('package.json')).name).toBe('billing');
    expect(context.out.lines[0]).toBe('no changes');
    await expect(
      runInit({ ...BASE, domain: 'other.example', projectName: undefined, force: true }, testContext({ cwd: dir })),
    ).rejects.toThrow(/--domain "other.example" contradicts PROJECT, which records "corp.example.org"/);
    expect(await read('PROJECT')).toBe(before);
  });

  it('--force shows what it changes in a file the user edited before replacing it', async () => {
    await runInit(BASE, testContext({ cwd: dir }));
    const main = await read('src/main.ts');
    await writeFile(
      path.join(dir, 'src/main.ts'),
      main.replace('async function main(', '// my own note\nasync function main('),
    );
    const context = testContext({ cwd: dir, dryRun: true });
    await runInit({ ...BASE, force: true }, context);
    const at = context.out.lines.indexOf('UPDATE src/main.ts');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(context.out.lines[at + 1]).toBe('  -// my own note');
    expect((await read('src/main.ts')).includes('// my own note')).toBe(true);
  });

  it('keeps an existing README.md (a fresh clone) and reports it as skipped', async () => {
    await writeFile(path.join(dir, 'README.md'), '# mine\n');
    const context = testContext({ cwd: dir });
    await runInit(BASE, context);
    expect(await read('README.md')).toBe('# mine\n');
    expect(context.out.lines).toContain('SKIP   README.md (exists)');
  });

  it("keeps a clone's own AGENTS.md", async () => {
    await writeFile(path.join(dir, 'AGENTS.md'), '# our agent guide\n');
    const context = testContext({ cwd: dir });
    await runInit(BASE, context);
    expect(await read('AGENTS.md')).toBe('# our agent guide\n');
    expect(context.out.lines).toContain('SKIP   AGENTS.md (exists)');
  });

  it('--dry-run prints the plan and writes nothing', async () => {
    const context = testContext({ cwd: dir, dryRun: true });
    await runInit({ ...BASE, skipInstall: false }, context);
    expect(await listFiles(dir)).toEqual([]);
    expect(context.out.lines).toContain('CREATE src/main.ts');
    expect(context.out.lines.slice(-2)).toEqual(['would run: npm install', 'dry run: nothing was written']);
  });

  const badNames = [
    {
      given: { projectName: 'Bad_Name' },
      want: /--project-name: invalid project name "Bad_Name": a project name must be a DNS-1123 label/,
    },
    { given: { projectName: '../x' }, want: /--project-name: invalid project name "\.\.\/x"/ },
    {
      given: { domain: 'Example.COM' },
      want: /--domain: invalid domain "Example\.COM": a domain must be a DNS-1123 subdomain/,
    },
    { given: { license: 'mit' }, want: /--license: unknown license "mit"; choose one of apache2, none/ },
    { given: { owner: 'a\nb' }, want: /--owner: invalid owner/ },
  ];
  for (const { given, want } of badNames) {
    it(`refuses ${JSON.stringify(given)} with what a valid value is`, async () => {
      const error = await runInit({ ...BASE, ...given }, testContext({ cwd: dir })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(want);
      expect(await listFiles(dir)).toEqual([]);
    });
  }

  it('without a TTY takes defaults: the folder name, my.domain, apache2, the running kop packed into .kop/', async () => {
    const pack = fakeNpmPack();
    await runInit({ skipInstall: true }, testContext({ cwd: dir, exec: pack.exec }));
    const project = parseProjectFile(await read('PROJECT'));
    expect(project).toMatchObject({
      projectName: 'my-operator',
      domain: 'my.domain',
      kopSource: 'file:.kop/kop-0.1.0.tgz',
    });
    expect(pack.calls).toEqual([
      {
        file: 'npm',
        args: [
          'pack',
          kopPackageRoot(),
          '--pack-destination',
          expect.any(String),
          '--json',
          '--ignore-scripts',
          '--loglevel=error',
        ],
        cwd: undefined,
      },
    ]);
    expect(await read('hack/boilerplate.txt')).toBe(
      'Copyright 2026 The my-operator authors.\nSPDX-License-Identifier: Apache-2.0\n',
    );
  });

  it('without a TTY and with a folder name that is not a valid project name, asks for --project-name', async () => {
    const { dir: badDir, cleanup: cleanupBad } = await tempDir('My_Folder');
    try {
      const error = await runInit({ skipInstall: true }, testContext({ cwd: badDir })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(/missing --project-name/);
    } finally {
      await cleanupBad();
    }
  });

  it('on a TTY asks for what the flags left out, naming each flag', async () => {
    const context = testContext({
      cwd: dir,
      answers: { '--domain': 'acme.io', '--owner': 'ACME', '--license': 'none' },
    });
    await runInit({ skipInstall: true, kopSource: 'file:../kop' }, context);
    expect(context.asked.map((q) => q.flag)).toEqual(['--domain', '--project-name', '--owner', '--license']);
    expect(parseProjectFile(await read('PROJECT'))).toMatchObject({ domain: 'acme.io', projectName: 'my-operator' });
  });

  it('runs npm install after writing, through exec with an argument array', async () => {
    const calls: { file: string; args: readonly string[]; cwd?: string }[] = [];
    const exec: Exec = async (file, args, options) => {
      calls.push({ file, args, cwd: options?.cwd });
      await readFile(path.join(dir, 'package.json'));
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    const context = testContext({ cwd: dir, exec });
    await runInit({ ...BASE, skipInstall: false }, context);
    expect(calls).toEqual([{ file: 'npm', args: ['install', '--no-audit', '--no-fund'], cwd: dir }]);
    expect(context.out.lines).toContain('RUN    npm install ...');
  });

  it('a failing npm install is an error that says the files are written', async () => {
    const exec: Exec = async () => ({ exitCode: 1, stdout: '', stderr: 'ERESOLVE' });
    const error = await runInit({ ...BASE, skipInstall: false }, testContext({ cwd: dir, exec })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KopError);
    expect((error as KopError).message).toBe('npm install failed: npm exited with code 1: ERESOLVE');
    expect((error as KopError).hint).toMatch(/files were written; run `npm install`/);
  });

  describe('how the project depends on kop', () => {
    it('by default packs the running kop into .kop/kop-<version>.tgz, depends on it relatively, and the Dockerfile copies it', async () => {
      const pack = fakeNpmPack('0.1.0', Uint8Array.from([1, 2, 3, 250]));
      const context = testContext({ cwd: dir, exec: pack.exec });
      await runInit({ ...BASE, kopSource: undefined, skipInstall: false }, context);
      expect(new Uint8Array(await readFile(path.join(dir, '.kop/kop-0.1.0.tgz')))).toEqual(
        Uint8Array.from([1, 2, 3, 250]),
      );
      expect(JSON.parse(await read('package.json')).dependencies.kop).toBe('file:.kop/kop-0.1.0.tgz');
      expect(parseProjectFile(await read('PROJECT')).kopSource).toBe('file:.kop/kop-0.1.0.tgz');
      expect(await read('Dockerfile')).toMatch(
        /^COPY package\.json package-lock\.json \.\/\n[^]*^COPY \.kop\/ \.kop\/\nRUN npm ci /m,
      );
      // git keeps the tarball (kop dev's session beside it is ignored), and so does the image's build context.
      await execa('git', ['init', '-q'], { cwd: dir, env: GIT_ENV });
      expect(
        (await execa('git', ['check-ignore', '-q', '.kop/kop-0.1.0.tgz'], { cwd: dir, reject: false, env: GIT_ENV }))
          .exitCode,
      ).toBe(1);
      expect(
        (await execa('git', ['check-ignore', '-q', '.kop/dev/kubeconfig'], { cwd: dir, reject: false, env: GIT_ENV }))
          .exitCode,
      ).toBe(0);
      const dockerignored = dockerignoreMatcher(await read('.dockerignore'));
      expect(dockerignored('.kop/kop-0.1.0.tgz')).toBe(false);
      expect(dockerignored('.kop/dev/kubeconfig')).toBe(true);
      expect(context.out.lines).toContain('CREATE .kop/kop-0.1.0.tgz');
      // npm install names kop's spec, so a tarball refreshed under the same name updates the lockfile.
      expect(pack.calls.at(-1)).toEqual({
        file: 'npm',
        args: ['install', '--no-audit', '--no-fund', 'kop@file:.kop/kop-0.1.0.tgz'],
        cwd: dir,
      });
      expect(context.out.lines.join('\n')).toMatch(
        /packed into \.kop\/kop-0\.1\.0\.tgz: commit it[^]*`kop update-pack` refreshes it[^]*`npx kop create api/,
      );
      for (const file of await listFiles(dir)) {
        if (!file.endsWith('.tgz')) expect(await read(file), file).not.toContain(kopPackageRoot());
      }
    });

    it('init --force re-packs: the same kop is no change, a newer one replaces the tarball and the dependency', async () => {
      const pack = fakeNpmPack('0.1.0');
      await runInit({ ...BASE, kopSource: undefined }, testContext({ cwd: dir, exec: pack.exec }));
      const same = testContext({ cwd: dir, exec: pack.exec });
      await runInit({ ...BASE, kopSource: undefined, force: true }, same);
      expect(same.out.lines[0]).toBe('no changes');

      pack.set('0.2.0', Uint8Array.from([9, 9]));
      const newer = testContext({ cwd: dir, exec: pack.exec });
      await runInit({ ...BASE, kopSource: undefined, force: true }, newer);
      expect(newer.out.lines).toEqual(
        expect.arrayContaining([
          'CREATE .kop/kop-0.2.0.tgz',
          'DELETE .kop/kop-0.1.0.tgz',
          'UPDATE PROJECT',
          'UPDATE package.json',
        ]),
      );
      expect(await readdir(path.join(dir, '.kop'))).toEqual(['kop-0.2.0.tgz']);
      expect(JSON.parse(await read('package.json')).dependencies.kop).toBe('file:.kop/kop-0.2.0.tgz');
    });

    it('--dry-run shows the tarball in the plan and writes nothing', async () => {
      const context = testContext({ cwd: dir, dryRun: true, exec: fakeNpmPack().exec });
      await runInit({ ...BASE, kopSource: undefined }, context);
      expect(context.out.lines).toContain('CREATE .kop/kop-0.1.0.tgz');
      expect(await listFiles(dir)).toEqual([]);
    });

    it('a registry range: the Dockerfile copies no .kop/ and the README names the range', async () => {
      await runInit({ ...BASE, kopSource: '^0.1.0' }, testContext({ cwd: dir }));
      expect(JSON.parse(await read('package.json')).dependencies.kop).toBe('^0.1.0');
      expect(await read('Dockerfile')).not.toContain('.kop');
      expect(await read('Dockerfile')).toMatch(/^COPY package\.json package-lock\.json \.\/\nRUN npm ci /m);
      expect(await read('README.md')).toContain('`"kop": "^0.1.0"`');
      expect(await read('README.md')).not.toContain('outside this project');
      expect(existsSync(path.join(dir, '.kop'))).toBe(false);
    });

    const refused = [
      {
        given: 'file:/home/me/kop',
        want: /--kop-source "file:\/home\/me\/kop": an absolute path exists on this machine only/,
      },
      { given: '/home/me/kop', want: /an absolute path exists on this machine only/ },
      { given: 'file:~/kop', want: /an absolute path/ },
      { given: 'file:///home/me/kop.tgz', want: /an absolute path/ },
      { given: 'file:.', want: /names the project itself/ },
      { given: './', want: /names the project itself/ },
      { given: 'file:node_modules/kop', want: /the project's own node_modules/ },
      { given: ' ', want: /not an npm dependency spec/ },
    ];
    for (const { given, want } of refused) {
      it(`refuses --kop-source ${JSON.stringify(given)}, writing nothing`, async () => {
        const error = await runInit({ ...BASE, kopSource: given }, testContext({ cwd: dir })).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UsageError);
        expect((error as UsageError).message).toMatch(want);
        expect((error as UsageError).hint).toMatch(
          /leave --kop-source out: kop packs itself into \.kop\/kop-<version>\.tgz/,
        );
        expect(await listFiles(dir)).toEqual([]);
      });
    }

    it('--force replaces an absolute kopSource an older kop recorded, with a warning, and --kop-source switches the source', async () => {
      await runInit(BASE, testContext({ cwd: dir }));
      await writeFile(
        path.join(dir, 'PROJECT'),
        (await read('PROJECT')).replace(
          'kopSource: file:../kop',
          'kopSource: file:/root/.npm/_npx/0123/node_modules/kop',
        ),
      );
      const context = testContext({ cwd: dir, exec: fakeNpmPack().exec });
      await runInit({ ...BASE, kopSource: undefined, force: true }, context);
      expect(context.out.warnings.join('\n')).toMatch(
        /PROJECT records kopSource "file:\/root\/\.npm\/_npx\/0123\/node_modules\/kop", which does not install elsewhere \(an absolute path/,
      );
      expect(parseProjectFile(await read('PROJECT')).kopSource).toBe('file:.kop/kop-0.1.0.tgz');

      const switched = testContext({ cwd: dir });
      await runInit({ ...BASE, kopSource: '^0.1.0', force: true }, switched);
      expect(parseProjectFile(await read('PROJECT')).kopSource).toBe('^0.1.0');
      expect(JSON.parse(await read('package.json')).dependencies.kop).toBe('^0.1.0');
      // The tarball nothing depends on any more goes.
      expect(switched.out.lines).toContain('DELETE .kop/kop-0.1.0.tgz');
      expect(await readdir(path.join(dir, '.kop'))).toEqual([]);
    });

    it("refuses to scaffold into kop's own package folder (dry run, so a failing guard could not write)", async () => {
      const error = await runInit(
        { skipInstall: true, force: true },
        testContext({ cwd: kopPackageRoot(), dryRun: true, exec: fakeNpmPack().exec }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KopError);
      expect((error as Error).message).toMatch(/is kop's own package folder; kop init wrote nothing/);
    });
  });

  it('an owner with quotes stays inside comments and strings', async () => {
    await runInit({ ...BASE, owner: `O'Brien "Ops" */ <x>` }, testContext({ cwd: dir }));
    expect(await read('src/main.ts')).toContain(`// Copyright 2026 O'Brien "Ops" * / <x>.`);
    JSON.parse(await read('package.json'));
  });
});

describe("the project's Node versions", () => {
  const cases: Array<{ given: string; wantNote: boolean }> = [
    { given: '20.12.0', wantNote: true },
    { given: '20.18.3', wantNote: true },
    { given: '20.19.0', wantNote: false },
    { given: 'v20.20.2', wantNote: false },
    { given: '21.7.3', wantNote: true },
    { given: '22.12.0', wantNote: true },
    { given: '22.13.0', wantNote: false },
    { given: '23.11.0', wantNote: true },
    { given: '24.0.0', wantNote: false },
    { given: '25.1.0', wantNote: false },
  ];
  for (const { given, wantNote } of cases) {
    it(`kop init on Node ${given} ${wantNote ? 'says once what the project needs' : 'says nothing'}`, () => {
      const note = nodeEnginesNote(given);
      if (wantNote) {
        expect(note).toBe(
          `this is Node ${given.replace(/^v/, '')}, and the project needs Node ^20.19.0 || ^22.13.0 || >=24 (its linter, ESLint 10, does): npm install will warn (EBADENGINE) and ESLint may not run; install Node 24, the active LTS, or 22`,
        );
      } else expect(note).toBeUndefined();
    });
  }
});
