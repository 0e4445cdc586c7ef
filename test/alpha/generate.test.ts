import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { execaExec } from '../../src/base/make-context.js';
import { generators } from '../../src/commands/generate.js';
import { runEdit } from '../../src/edit/run-edit-plugins.js';
import { runImportCrd } from '../../src/import/run-import-crd.js';
import { findControlPlaneBinaries } from '../../src/testing/index.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runInit } from '../../src/init/run-init.js';
import { kopVersion } from '../../src/base/paths.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { mergeProject } from '../../src/alpha/merge-trees.js';
import { createApiOptions, parseBoilerplate, replaySteps } from '../../src/alpha/project-features.js';
import { findOldKop } from '../../src/alpha/old-kop.js';
import { runAlphaGenerate } from '../../src/alpha/run-alpha-generate.js';
import { runAlphaUpdate } from '../../src/alpha/run-alpha-update.js';
import { runEditProject } from '../../src/edit/run-edit-project.js';
import { snapshotDir, snapshotOf } from '../../src/alpha/replay.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { preparedProject } from '../helpers/prepared-project.js';

const GROUP = { group: 'cache', kind: 'RedisCluster' };
const IMPORT_FIXTURES = fileURLToPath(new URL('../import/fixtures', import.meta.url));

describe('kop alpha generate: the project rebuilt from PROJECT', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');

  const demo = preparedProject('demo', async (at) => {
    const context = () => testContext({ cwd: at });
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'Example Corp',
        license: 'apache2',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      context(),
    );
    await runCreateApi({ ...GROUP, version: 'v1', plural: 'redises' }, context());
    await runCreateApi({ ...GROUP, version: 'v2', controller: false }, context());
    await runCreateApi(
      { group: 'ops', version: 'v1alpha1', kind: 'Backup', namespaced: false, controller: false },
      context(),
    );
    await runCreateWebhook({ ...GROUP, version: 'v1', defaulting: true, programmaticValidation: true }, context());
    await runCreateWebhook({ ...GROUP, version: 'v1', conversion: true, spoke: ['v2'] }, context());
    await runGenerate({ check: false, allowDangerousTypes: false, generators }, context());
  });
  beforeEach(async () => {
    ({ dir, cleanup } = await demo());
  });
  afterEach(() => cleanup());

  it('PROJECT records the kop that scaffolded the project, and a bad cliVersion is refused with its line', async () => {
    const project = parseProjectFile(await read('PROJECT'));
    expect(project.cliVersion).toBe(kopVersion());
    const text = await read('PROJECT');
    expect(() => parseProjectFile(text.replace(/cliVersion: .*/, 'cliVersion: latest'))).toThrow(
      /PROJECT:\d+: cliVersion: must be the version of kop/,
    );
  });

  it('the replay is one step per recorded feature, as the command lines that made the project', async () => {
    const project = parseProjectFile(await read('PROJECT'));
    const steps = await replaySteps({
      project,
      read: async (file) => read(file).catch(() => undefined),
      kopSource: 'file:../kop',
      generators,
    });
    expect(steps.map((step) => step.argv?.join(' '))).toEqual([
      'init --domain example.com --project-name demo --owner Example Corp --license apache2 --kop-source file:../kop --skip-install --yes',
      'create api --group cache --version v1 --kind RedisCluster --plural redises --namespaced --resource --controller --yes',
      'create api --group cache --version v2 --kind RedisCluster --plural redises --namespaced --resource --no-controller --yes',
      'create api --group ops --version v1alpha1 --kind Backup --plural backups --no-namespaced --resource --no-controller --yes',
      'create webhook --group cache --version v1 --kind RedisCluster --defaulting --programmatic-validation --conversion --spoke v2 --yes',
      'generate',
    ]);
    expect(createApiOptions(project.resources[0]!, project)).toMatchObject({
      resource: true,
      controller: true,
      namespaced: true,
    });
    expect(parseBoilerplate(await read('hack/boilerplate.txt'))).toEqual({
      owner: 'Example Corp',
      license: 'apache2',
      year: 2026,
    });
  });

  it('into an empty folder, the rebuilt project is the project, file for file', async () => {
    const output = path.join(path.dirname(dir), 'rebuilt');
    const context = testContext({ cwd: dir });
    const result = await runAlphaGenerate({ outputDir: output, generators }, context);
    expect(result.skipped).toEqual([]);
    const original = await snapshotDir(dir);
    const rebuilt = await snapshotDir(output);
    expect([...rebuilt.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [file, bytes] of original)
      expect(rebuilt.get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
    expect(rebuilt.modes).toEqual(original.modes);
  });

  it("replays the project's CRD description cap before generating, so the CRDs come out the same", async () => {
    await runEditProject({ maxDescriptionLength: 0 }, testContext({ cwd: dir }));
    await runGenerate({ check: false, generators }, testContext({ cwd: dir }));
    const steps = await replaySteps({
      project: parseProjectFile(await read('PROJECT')),
      read: async (file) => read(file).catch(() => undefined),
      kopSource: 'file:../kop',
      generators,
    });
    expect(steps.map((step) => step.argv?.join(' ')).slice(-2)).toEqual([
      'edit --max-description-length 0',
      'generate',
    ]);
    const output = path.join(path.dirname(dir), 'rebuilt');
    const result = await runAlphaGenerate({ outputDir: output, generators }, testContext({ cwd: dir }));
    expect(result.skipped).toEqual([]);
    const original = await snapshotDir(dir);
    const rebuilt = await snapshotDir(output);
    expect([...rebuilt.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [file, bytes] of original)
      expect(rebuilt.get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
  });

  it('refuses an output folder that is not empty, writing nothing', async () => {
    const context = testContext({ cwd: dir });
    await expect(runAlphaGenerate({ outputDir: path.join(dir, 'src'), generators }, context)).rejects.toThrow(
      /--output-dir .*src is not empty/,
    );
  });

  it('in place, it replaces the scaffolded files after copying them to a backup, and leaves other files', async () => {
    await writeFile(
      path.join(dir, 'src/controllers/rediscluster.controller.ts'),
      `${await read('src/controllers/rediscluster.controller.ts')}// my edit\n`,
    );
    await writeFile(path.join(dir, 'src/extra.ts'), 'export const mine = 1;\n');
    const context = testContext({ cwd: dir });
    const result = await runAlphaGenerate({ generators }, context);
    expect(result.backupDir).toBeDefined();
    expect(
      result.changes
        .filter((change) => change.action !== 'unchanged')
        .map((change) => `${change.action} ${change.path}`),
    ).toEqual(['update src/controllers/rediscluster.controller.ts']);
    expect(await read('src/controllers/rediscluster.controller.ts')).not.toContain('// my edit');
    expect(
      await readFile(path.join(result.backupDir!, 'src/controllers/rediscluster.controller.ts'), 'utf8'),
    ).toContain('// my edit');
    expect(await read('src/extra.ts')).toBe('export const mine = 1;\n');
    await rm(result.backupDir!, { recursive: true, force: true });
  });

  it('--dry-run prints the plan and writes nothing', async () => {
    const output = path.join(path.dirname(dir), 'dry');
    const context = testContext({ cwd: dir, dryRun: true });
    await runAlphaGenerate({ outputDir: output, generators }, context);
    expect(context.out.lines).toContain('dry run: nothing was written');
    await expect(readFile(path.join(output, 'PROJECT'))).rejects.toThrow(/ENOENT/);
  });
});

describe('mergeProject: per file', () => {
  const snap = (files: Record<string, string>) =>
    snapshotOf(Object.entries(files).map(([file, text]) => [file, Buffer.from(text)]));
  it('takes, keeps, merges, conflicts and regenerates', async () => {
    const generated = (text: string) => `# Code generated by kop. DO NOT EDIT.\n${text}`;
    const base = snap({
      'a.ts': 'a\nb\nc\n',
      'same.ts': 'x\n',
      'gone.ts': 'old\n',
      'mine.ts': 'm\n',
      'both.ts': '1\n2\n3\n4\n5\n',
      'clash.ts': 'x\n',
      'gen.yaml': generated('1\n'),
    });
    const theirs = snap({
      'a.ts': 'a\nB\nc\n',
      'same.ts': 'x\n',
      'new.ts': 'n\n',
      'mine.ts': 'm\n',
      'both.ts': '1\nTWO\n3\n4\n5\n',
      'clash.ts': 'theirs\n',
      'gen.yaml': generated('2\n'),
    });
    const ours = snap({
      'a.ts': 'a\nb\nc\n',
      'same.ts': 'x\n',
      'gone.ts': 'old\n',
      'mine.ts': 'mine\n',
      'both.ts': '1\n2\n3\n4\nFIVE\n',
      'clash.ts': 'ours\n',
      'gen.yaml': generated('3\n'),
    });
    const outcomes = await mergeProject(base, theirs, async (file) => ours.get(file), 'kop 9.9.9');
    const byPath = Object.fromEntries(outcomes.map((outcome) => [outcome.path, outcome]));
    expect(Object.keys(byPath).sort()).toEqual([
      'a.ts',
      'both.ts',
      'clash.ts',
      'gen.yaml',
      'gone.ts',
      'mine.ts',
      'new.ts',
    ]);
    expect(byPath['a.ts']).toMatchObject({ outcome: 'taken' });
    expect(byPath['new.ts']).toMatchObject({ outcome: 'added' });
    expect(byPath['gone.ts']).toMatchObject({ outcome: 'removed', content: undefined });
    expect(byPath['mine.ts']).toMatchObject({ outcome: 'kept' });
    expect(byPath['both.ts']!.outcome).toBe('merged');
    expect((byPath['both.ts'] as { content: Buffer }).content.toString()).toBe('1\nTWO\n3\n4\nFIVE\n');
    expect(byPath['clash.ts']).toMatchObject({ outcome: 'conflict', conflicts: 1 });
    expect((byPath['clash.ts'] as { content: Buffer }).content.toString()).toBe(
      '<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> kop 9.9.9\n',
    );
    expect(byPath['gen.yaml']).toMatchObject({ outcome: 'regenerated' });
  });
});

describe('kop alpha update: finding the kop that scaffolded the project', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const demo = preparedProject('demo', async (at) => {
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'Demo',
        license: 'none',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      testContext({ cwd: at }),
    );
  });
  beforeEach(async () => {
    ({ dir, cleanup } = await demo());
  });
  afterEach(() => cleanup());

  it('a project on this kop has nothing to update', async () => {
    const context = testContext({ cwd: dir });
    const result = await runAlphaUpdate({}, context);
    expect(result.written).toBe(false);
    expect(context.out.lines.join('\n')).toContain(`scaffolded by kop ${kopVersion()}, this kop: nothing to update`);
  });

  it('without cliVersion in PROJECT, it asks for --from-version or --from', async () => {
    const file = path.join(dir, 'PROJECT');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^cliVersion: .*\n/m, ''));
    await expect(runAlphaUpdate({}, testContext({ cwd: dir }))).rejects.toThrow(/PROJECT records no cliVersion/);
    await expect(findOldKop(dir, {}, testContext({ cwd: dir }))).rejects.toMatchObject({
      hint: expect.stringContaining('--from-version'),
    });
  });

  it('names where it looked for an old version it cannot find', async () => {
    await expect(runAlphaUpdate({ fromVersion: '0.0.1' }, testContext({ cwd: dir }))).rejects.toThrow(
      /kop 0\.0\.1, which scaffolded the project, is neither in \.kop\/kop-0\.0\.1\.tgz nor installed in node_modules\/kop/,
    );
    await expect(runAlphaUpdate({ from: 'missing.tgz' }, testContext({ cwd: dir }))).rejects.toThrow(
      /--from missing\.tgz: no such file or folder/,
    );
    await expect(runAlphaUpdate({ from: '.' }, testContext({ cwd: dir }))).rejects.toThrow(
      /--from \.: the folder is not a kop package/,
    );
  });
});

describe('kop alpha generate: imported kinds and the helm chart', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir('demo')));
  afterEach(() => cleanup());

  it('copies an imported (external) kind, replays edit --plugins helm, and the rebuilt project is the project', async () => {
    const kubectl = findControlPlaneBinaries().kubectl;
    expect(kubectl, 'kubectl from `kop setup-envtest`').toBeDefined();
    const context = () => Object.assign(testContext({ cwd: dir, exec: execaExec }), { env: { KUBECTL: kubectl } });
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'Demo',
        license: 'apache2',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      context(),
    );
    await runCreateApi({ ...GROUP, version: 'v1' }, context());
    await runImportCrd({ sources: [path.join(IMPORT_FIXTURES, 'certificates.yaml')] }, context());
    await runGenerate({ check: false, allowDangerousTypes: false, generators }, context());
    await runEdit({ plugins: ['helm'] }, context());
    const project = parseProjectFile(await readFile(path.join(dir, 'PROJECT'), 'utf8'));
    expect(project.resources.some((resource) => resource.external === true)).toBe(true);

    const output = path.join(path.dirname(dir), 'rebuilt');
    const result = await runAlphaGenerate({ outputDir: output, generators }, context());
    expect(result.skipped).toEqual([]);
    const original = await snapshotDir(dir);
    const rebuilt = await snapshotDir(output);
    expect([...original.keys()].filter((file) => file.startsWith('dist/chart/')).length).toBeGreaterThan(3);
    expect([...rebuilt.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [file, bytes] of original)
      expect(rebuilt.get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
  }, 120_000);

  it('replays edit --plugins helm into the output PROJECT records, not the default dist', async () => {
    const kubectl = findControlPlaneBinaries().kubectl;
    expect(kubectl, 'kubectl from `kop setup-envtest`').toBeDefined();
    const context = () => Object.assign(testContext({ cwd: dir, exec: execaExec }), { env: { KUBECTL: kubectl } });
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'Demo',
        license: 'apache2',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      context(),
    );
    await runCreateApi({ ...GROUP, version: 'v1' }, context());
    await runGenerate({ check: false, allowDangerousTypes: false, generators }, context());
    // The chart's folder is PROJECT's setting (Kubebuilder's `output`), set by hand before the plugin runs.
    const projectFile = path.join(dir, 'PROJECT');
    await writeFile(
      projectFile,
      `${await readFile(projectFile, 'utf8')}plugins:\n  helm.kubebuilder.io/v2-alpha:\n    manifests: dist/install.yaml\n    output: deploy\n`,
    );
    await runEdit({ plugins: ['helm'] }, context());
    const original = await snapshotDir(dir);
    expect(original.has('deploy/chart/Chart.yaml')).toBe(true);
    expect([...original.keys()].some((file) => file.startsWith('dist/chart/'))).toBe(false);

    // The setting is written into the rebuilt PROJECT by a step without a command line, so an
    // older kop replayed command by command gets it too.
    const project = parseProjectFile(await readFile(projectFile, 'utf8'));
    const steps = await replaySteps({
      project,
      read: async (file) => readFile(path.join(dir, file), 'utf8').catch(() => undefined),
      generators,
    });
    const record = steps.find((step) => step.title.startsWith('record helm.kubebuilder.io/v2-alpha'));
    expect(record?.title).toBe(
      'record helm.kubebuilder.io/v2-alpha in PROJECT: manifests: "dist/install.yaml", output: "deploy"',
    );
    expect(record?.argv).toBeUndefined();
    expect(steps.indexOf(record!)).toBe(
      steps.findIndex((step) => step.title === 'edit --plugins helm.kubebuilder.io/v2-alpha') - 1,
    );

    const output = path.join(path.dirname(dir), 'rebuilt');
    const result = await runAlphaGenerate({ outputDir: output, generators }, context());
    expect(result.skipped).toEqual([]);
    const rebuilt = await snapshotDir(output);
    expect([...rebuilt.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [file, bytes] of original)
      expect(rebuilt.get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
  }, 120_000);
});
