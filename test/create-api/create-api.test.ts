import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileExistsError, KopError, UsageError } from '../../src/base/errors.js';
import { runCreateApi, type CreateApiOptions } from '../../src/create-api/run-create-api.js';
import { runInit } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { testContext } from '../helpers/fake-context.js';
import { preparedProject } from '../helpers/prepared-project.js';
import { listFiles } from '../helpers/files.js';

const MEMCACHED: CreateApiOptions = { group: 'cache', version: 'v1alpha1', kind: 'Memcached' };

/** Every file's content, to show that a refused run wrote nothing. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files = await listFiles(dir);
  return Object.fromEntries(
    await Promise.all(files.map(async (file) => [file, await readFile(path.join(dir, file), 'utf8')] as const)),
  );
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** Groups of 177 and 230 characters (labels of at most 63). */
const LONG_GROUP_177 = ['a'.repeat(60), 'b'.repeat(60), 'c'.repeat(55)].join('.');
const LONG_GROUP_230 = ['a'.repeat(60), 'b'.repeat(60), 'c'.repeat(60), 'd'.repeat(47)].join('.');

describe('kop create api', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');
  const project = async () => parseProjectFile(await read('PROJECT'));
  const create = (
    options: CreateApiOptions,
    extra: Parameters<typeof testContext>[0] extends infer T ? Partial<T> : never = {},
  ) => {
    const context = testContext({ cwd: dir, ...extra });
    return { context, run: runCreateApi(options, context) };
  };

  const prepared = preparedProject('demo', async (at) => {
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'The demo authors',
        license: 'apache2',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      testContext({ cwd: at }),
    );
  });
  beforeEach(async () => {
    ({ dir, cleanup } = await prepared());
  });
  afterEach(() => cleanup());

  it('records the kind and scaffolds types, group version, sample and reconciler', async () => {
    const { context, run } = create(MEMCACHED);
    await run;
    expect(context.out.lines.slice(0, 11)).toEqual([
      'UPDATE PROJECT',
      'CREATE api/cache/v1alpha1/groupversion.ts',
      'CREATE api/cache/v1alpha1/memcached.types.ts',
      'UPDATE config/rbac/kustomization.yaml',
      'CREATE config/rbac/memcached_admin_role.yaml',
      'CREATE config/rbac/memcached_editor_role.yaml',
      'CREATE config/rbac/memcached_viewer_role.yaml',
      'CREATE config/samples/cache_v1alpha1_memcached.yaml',
      'UPDATE config/samples/kustomization.yaml',
      'CREATE src/controllers/memcached.controller.ts',
      'UPDATE src/main.ts',
    ]);
    expect((await project()).resources).toEqual([
      {
        group: 'cache',
        version: 'v1alpha1',
        kind: 'Memcached',
        plural: 'memcacheds',
        domain: 'example.com',
        path: 'api/cache/v1alpha1/memcached.types.ts',
        api: { crdVersion: 'v1', namespaced: true },
        controller: true,
      },
    ]);

    const types = await read('api/cache/v1alpha1/memcached.types.ts');
    expect(types).toMatch(/^\/\/ Scaffolded by kop/);
    expect(types).toContain("import type { Condition, ListMeta, ObjectMeta } from 'kop/api';");
    expect(types).toMatch(
      /\* \+kubebuilder:object:root=true\n \* \+kubebuilder:subresource:status\n \*\/\nexport interface Memcached \{/,
    );
    expect(types).toMatch(
      /\* \+listType=map\n\s+\* \+listMapKey=type\n\s+\* \+optional\n\s+\*\/\n\s+conditions\?: Condition\[\];/,
    );
    expect(types).toContain('export interface MemcachedSpec {');
    expect(types).toContain('export interface MemcachedList {');
    expect(types).not.toContain('+kubebuilder:resource:');

    const groupVersion = await read('api/cache/v1alpha1/groupversion.ts');
    expect(groupVersion).toContain('// +groupName=cache.example.com\n');
    expect(groupVersion).toContain("export const API_VERSION = 'cache.example.com/v1alpha1';");

    const sample = parseYaml(await read('config/samples/cache_v1alpha1_memcached.yaml'));
    expect(sample).toMatchObject({
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name: 'memcached-sample' },
      spec: { foo: 'bar' },
    });
    expect(parseYaml(await read('config/samples/kustomization.yaml')).resources).toEqual([
      'cache_v1alpha1_memcached.yaml',
    ]);

    const controller = await read('src/controllers/memcached.controller.ts');
    expect(controller).toContain(
      '// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=get;list;watch;create;update;patch;delete',
    );
    expect(controller).toContain(
      '// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=get;update;patch',
    );
    expect(controller).toContain('export class MemcachedReconciler {');

    const main = await read('src/main.ts');
    expect(main).toContain(
      "import { MemcachedReconciler } from './controllers/memcached.controller.js';\n// +kop:scaffold:imports",
    );
    expect(main).toContain(
      '    new MemcachedReconciler().setupWithManager(manager);\n    // +kop:scaffold:controllers',
    );
  });

  it('adds a second kind to a version without touching its groupversion.ts', async () => {
    await create(MEMCACHED).run;
    const { context, run } = create({ group: 'cache', version: 'v1alpha1', kind: 'RedisCluster' });
    await run;
    expect(context.out.lines).toContain('SKIP   api/cache/v1alpha1/groupversion.ts (exists)');
    expect(context.out.lines).toContain('CREATE api/cache/v1alpha1/rediscluster.types.ts');
    expect(parseYaml(await read('config/samples/kustomization.yaml')).resources).toEqual([
      'cache_v1alpha1_memcached.yaml',
      'cache_v1alpha1_rediscluster.yaml',
    ]);
    const main = await read('src/main.ts');
    expect(main).toContain("import { RedisClusterReconciler } from './controllers/rediscluster.controller.js';");
    expect(main).toContain('new RedisClusterReconciler().setupWithManager(manager);');
    expect((await project()).resources.map((r) => `${r.kind}/${r.version}/${r.plural}`)).toEqual([
      'Memcached/v1alpha1/memcacheds',
      'RedisCluster/v1alpha1/redisclusters',
    ]);
  });

  it('refuses an existing kind/version without --force and writes nothing', async () => {
    await create(MEMCACHED).run;
    const before = await snapshot(dir);
    await expect(create(MEMCACHED).run).rejects.toThrow(
      /Memcached cache\.example\.com\/v1alpha1 already exists in PROJECT/,
    );
    await expect(create({ ...MEMCACHED, resource: false, controller: true }).run).rejects.toThrow(
      /already has a reconciler/,
    );
    expect(await snapshot(dir)).toEqual(before);
    // The refusal names the files --force would overwrite, so the user sees what is at stake.
    await rm(path.join(dir, 'config/samples/cache_v1alpha1_memcached.yaml'));
    await expect(create(MEMCACHED).run).rejects.toThrow(
      'Memcached cache.example.com/v1alpha1 already exists in PROJECT (api/cache/v1alpha1/memcached.types.ts); kop create api wrote nothing',
    );
    await expect(create({ ...MEMCACHED, controller: true }).run).rejects.toThrow(
      'Memcached cache.example.com/v1alpha1 already exists in PROJECT (api/cache/v1alpha1/memcached.types.ts, src/controllers/memcached.controller.ts, test/controllers/memcached.controller.test.ts); kop create api wrote nothing',
    );
    await expect(create({ ...MEMCACHED, resource: false, controller: true }).run).rejects.toThrow(
      'Memcached cache.example.com/v1alpha1 already has a reconciler (src/controllers/memcached.controller.ts, test/controllers/memcached.controller.test.ts); kop create api wrote nothing',
    );
  });

  it('refuses to overwrite a types file PROJECT does not know about', async () => {
    await create(MEMCACHED).run;
    await writeFile(path.join(dir, 'PROJECT'), (await read('PROJECT')).replace(/resources:[^]*$/, 'resources: []\n'));
    const error = await create(MEMCACHED).run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileExistsError);
    expect((error as FileExistsError).path).toBe('api/cache/v1alpha1/memcached.types.ts');
  });

  it('re-scaffolds with --force without duplicating wiring', async () => {
    await create(MEMCACHED).run;
    const before = await snapshot(dir);
    const { context, run } = create({ ...MEMCACHED, force: true });
    await run;
    expect(context.out.lines.slice(0, 2)).toEqual(['SKIP   api/cache/v1alpha1/groupversion.ts (exists)', 'no changes']);
    expect(await snapshot(dir)).toEqual(before);
    const main = await read('src/main.ts');
    expect(count(main, 'import { MemcachedReconciler }')).toBe(1);
    expect(count(main, 'new MemcachedReconciler()')).toBe(1);
    expect(count(await read('config/samples/kustomization.yaml'), 'cache_v1alpha1_memcached.yaml')).toBe(1);

    // --force restores an edited scaffold, still without duplicating wiring.
    await writeFile(path.join(dir, 'api/cache/v1alpha1/memcached.types.ts'), '// edited\n');
    await create({ ...MEMCACHED, force: true }).run;
    expect(await snapshot(dir)).toEqual(before);
  });

  it('adds a second version of a kind: own types and sample, one reconciler, a storage-version reminder', async () => {
    await create(MEMCACHED).run;
    const { context, run } = create({ group: 'cache', version: 'v1beta1', kind: 'Memcached' });
    await run;
    expect(context.out.lines).toContain('CREATE api/cache/v1beta1/groupversion.ts');
    expect(context.out.lines).toContain('CREATE api/cache/v1beta1/memcached.types.ts');
    expect(context.out.lines).not.toContain('UPDATE src/main.ts');
    expect(context.out.warnings.join('\n')).toMatch(
      /Memcached now has versions v1alpha1, v1beta1: mark exactly one of them with \+kubebuilder:storageversion/,
    );
    // Conversion is one command away, with the storage version (here the first, none is marked) as the hub.
    expect(context.out.lines).toContain(
      'To convert between versions (hub v1alpha1, which it marks as the storage version; the others spokes): kop create webhook --group cache --version v1alpha1 --kind Memcached --conversion --spoke v1beta1',
    );
    const resources = (await project()).resources;
    expect(resources.map((r) => [r.version, r.plural, r.controller ?? false])).toEqual([
      ['v1alpha1', 'memcacheds', true],
      ['v1beta1', 'memcacheds', false],
    ]);
    expect(await read('api/cache/v1beta1/groupversion.ts')).toContain(
      "export const API_VERSION = 'cache.example.com/v1beta1';",
    );

    await expect(
      create({ group: 'cache', version: 'v1', kind: 'Memcached', plural: 'memcacheds-x' }).run,
    ).rejects.toThrow(UsageError);
    await expect(create({ group: 'cache', version: 'v1', kind: 'Memcached', namespaced: false }).run).rejects.toThrow(
      /already namespaced/,
    );
  });

  it("scaffolds each kind's admin, editor and viewer ClusterRoles once, listed at the rbac marker", async () => {
    await create(MEMCACHED).run;
    const admin = parseYaml(await read('config/rbac/memcached_admin_role.yaml')) as {
      kind: string;
      metadata: { name: string };
      rules: unknown[];
    };
    expect(admin.kind).toBe('ClusterRole');
    expect(admin.metadata.name).toBe('memcached-admin-role');
    expect(admin.rules).toEqual([
      { apiGroups: ['cache.example.com'], resources: ['memcacheds'], verbs: ['*'] },
      { apiGroups: ['cache.example.com'], resources: ['memcacheds/status'], verbs: ['get'] },
    ]);
    const verbsOf = async (level: string) =>
      (
        parseYaml(await read(`config/rbac/memcached_${level}_role.yaml`)) as { rules: Array<{ verbs: string[] }> }
      ).rules.map((rule) => rule.verbs);
    expect(await verbsOf('editor')).toEqual([['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['get']]);
    expect(await verbsOf('viewer')).toEqual([['get', 'list', 'watch'], ['get']]);

    // A second version shares the kind's roles: they are kept, as the user may have edited them.
    await writeFile(
      path.join(dir, 'config/rbac/memcached_viewer_role.yaml'),
      `${await read('config/rbac/memcached_viewer_role.yaml')}# edited\n`,
    );
    const second = create({ group: 'cache', version: 'v1beta1', kind: 'Memcached' });
    await second.run;
    expect(second.context.out.lines).toContain('SKIP   config/rbac/memcached_viewer_role.yaml (exists)');
    expect(await read('config/rbac/memcached_viewer_role.yaml')).toMatch(/# edited\n$/);
    const kustomization = await read('config/rbac/kustomization.yaml');
    for (const level of ['admin', 'editor', 'viewer'])
      expect(count(kustomization, `- memcached_${level}_role.yaml`)).toBe(1);
    expect(kustomization.indexOf('- memcached_viewer_role.yaml')).toBeLessThan(
      kustomization.indexOf('# +kop:scaffold:rbac'),
    );

    // The same kind in another group gets roles of its own, prefixed with its group; the first keeps its names.
    await create({ group: 'other', version: 'v1', kind: 'Memcached' }).run;
    const other = parseYaml(await read('config/rbac/other_memcached_editor_role.yaml')) as {
      metadata: { name: string };
      rules: Array<{ apiGroups: string[] }>;
    };
    expect(other.metadata.name).toBe('other-memcached-editor-role');
    expect(other.rules[0]!.apiGroups).toEqual(['other.example.com']);
    expect(await read('config/rbac/kustomization.yaml')).toContain('- other_memcached_admin_role.yaml');

    // init --force rewrites config/rbac/kustomization.yaml and lists every kind's roles again.
    const listed = (await read('config/rbac/kustomization.yaml'))
      .split('\n')
      .filter((line) => line.includes('_role.yaml') && line.includes('memcached'));
    await runInit({ force: true, skipInstall: true }, testContext({ cwd: dir }));
    expect(
      (await read('config/rbac/kustomization.yaml'))
        .split('\n')
        .filter((line) => line.includes('_role.yaml') && line.includes('memcached')),
    ).toEqual(listed);
  });

  it('writes scope and path markers only when they differ from the defaults', async () => {
    await create({ group: 'infra', version: 'v1', kind: 'Tenant', plural: 'tenantz', namespaced: false }).run;
    const types = await read('api/infra/v1/tenant.types.ts');
    expect(types).toContain(' * +kubebuilder:resource:path=tenantz,scope=Cluster\n');
    expect((await project()).resources[0]).toMatchObject({
      plural: 'tenantz',
      api: { crdVersion: 'v1', namespaced: false },
    });
    expect(await read('src/controllers/tenant.controller.ts')).toContain('resources=tenantz,verbs=');
  });

  it('refuses invalid names, saying what a valid one is', async () => {
    const table: Array<{ given: CreateApiOptions; want: RegExp }> = [
      {
        given: { ...MEMCACHED, kind: 'memcached' },
        want: /--kind: invalid kind "memcached": a kind must be UpperCamelCase/,
      },
      { given: { ...MEMCACHED, kind: 'Mem-cached' }, want: /--kind: invalid kind/ },
      {
        given: { ...MEMCACHED, kind: 'Condition' },
        want: /--kind: invalid kind "Condition": the scaffolded or generated code already uses the name Condition/,
      },
      {
        given: { ...MEMCACHED, version: 'v1.0' },
        want: /--version: invalid version "v1\.0": a version must have the Kubernetes form/,
      },
      { given: { ...MEMCACHED, version: 'alpha1' }, want: /--version: invalid version/ },
      {
        given: { ...MEMCACHED, group: 'Cache' },
        want: /--group: invalid group "Cache": a group must be a DNS-1123 subdomain/,
      },
      { given: { ...MEMCACHED, group: '../x' }, want: /--group: invalid group/ },
      {
        given: { ...MEMCACHED, plural: 'Memcacheds' },
        want: /--plural: invalid plural "Memcacheds": a plural must be lower case/,
      },
      // A CRD name of 253 characters is valid, but its file <group>_<plural>.yaml would be 258: every kop generate would fail.
      {
        given: { ...MEMCACHED, group: LONG_GROUP_177, kind: `A${'b'.repeat(61)}` },
        want: /the CRD file config\/crd\/bases\/.{20}\.\.\. would have a name of 258 characters; file names are limited to 255/,
      },
      // The sample <group>_<version>_<kind>.yaml: 230 + 1 + 8 + 1 + 62 + 5 characters.
      {
        given: { ...MEMCACHED, group: LONG_GROUP_230, version: 'v1alpha1', kind: `A${'b'.repeat(61)}`, plural: 'xs' },
        want: /the sample config\/samples\/.{20}\.\.\. would have a name of 307 characters; file names are limited to 255/,
      },
    ];
    const before = await snapshot(dir);
    for (const { given, want } of table) {
      const error = await create(given).run.catch((e: unknown) => e);
      expect(error, JSON.stringify(given)).toBeInstanceOf(UsageError);
      expect((error as Error).message, JSON.stringify(given)).toMatch(want);
    }
    expect(await snapshot(dir)).toEqual(before);
  });

  it('names the missing flag when it cannot ask', async () => {
    await expect(create({ version: 'v1', kind: 'Memcached' }).run).rejects.toThrow(/--group/);
    await expect(create({ group: 'cache', version: 'v1' }).run).rejects.toThrow(/--kind/);
  });

  it('asks on a terminal, and --resource/--controller answers are honoured', async () => {
    const { context, run } = create(
      {},
      { answers: { '--group': 'web', '--version': 'v1', '--kind': 'Site', '--resource': true, '--controller': false } },
    );
    await run;
    expect(context.asked.map((q) => q.flag)).toEqual(['--group', '--version', '--kind', '--resource', '--controller']);
    expect(context.asked.find((q) => q.flag === '--controller')?.initial).toBe(true);
    const files = await listFiles(dir);
    expect(files).toContain('api/web/v1/site.types.ts');
    expect(files).not.toContain('src/controllers/site.controller.ts');
    expect(await read('src/main.ts')).not.toContain('SiteReconciler');
    expect((await project()).resources[0]!.controller).toBeUndefined();

    // Later, the reconciler alone for the existing types.
    await create({ group: 'web', version: 'v1', kind: 'Site', resource: false, controller: true }).run;
    expect(await read('src/main.ts')).toContain('new SiteReconciler()');
    expect((await project()).resources[0]!.controller).toBe(true);
  });

  it('refuses a reconciler without types, and a run that creates nothing', async () => {
    await expect(create({ ...MEMCACHED, resource: false, controller: true }).run).rejects.toThrow(
      /no Memcached types at api\/cache\/v1alpha1\/memcached\.types\.ts/,
    );
    await expect(create({ ...MEMCACHED, resource: false, controller: false }).run).rejects.toThrow(/nothing to create/);
  });

  it('refuses a kind whose reconciler file another group already uses', async () => {
    await create(MEMCACHED).run;
    await expect(create({ group: 'other', version: 'v1', kind: 'Memcached', controller: true }).run).rejects.toThrow(
      /already uses src\/controllers\/memcached\.controller\.ts/,
    );
    // Without --controller the default is no reconciler, so the types can still be added.
    const { context, run } = create({ group: 'other', version: 'v1', kind: 'Memcached' });
    await run;
    expect(context.asked.find((q) => q.flag === '--controller')?.initial).toBe(false);
    expect(await listFiles(dir)).toContain('api/other/v1/memcached.types.ts');
    expect(count(await read('src/main.ts'), 'new MemcachedReconciler()')).toBe(1);
  });

  it('scaffolds a reconciler test only where test/global-setup.ts provides a control plane', async () => {
    await create(MEMCACHED).run;
    expect(await read('test/controllers/memcached.controller.test.ts')).toContain("inject('kubeconfigPath')");
    await rm(path.join(dir, 'test/global-setup.ts'));
    const { context, run } = create({ group: 'cache', version: 'v1alpha1', kind: 'RedisCluster' });
    await run;
    expect(context.out.warnings).toContain(
      'no reconciler test: the project has no test/global-setup.ts to start a control plane for it',
    );
    expect(await listFiles(dir)).not.toContain('test/controllers/rediscluster.controller.test.ts');
  });

  it('prints the plan and writes nothing with --dry-run', async () => {
    const before = await snapshot(dir);
    const { context, run } = create(MEMCACHED, { dryRun: true });
    await run;
    expect(context.out.lines).toContain('CREATE api/cache/v1alpha1/memcached.types.ts');
    expect(context.out.lines).toContain('dry run: nothing was written');
    expect(await snapshot(dir)).toEqual(before);
  });

  it('needs a kop project, and its scaffold markers', async () => {
    await rm(path.join(dir, 'PROJECT'));
    await expect(create(MEMCACHED).run).rejects.toThrow(/no PROJECT file/);
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'x',
        license: 'none',
        kopSource: 'file:../kop',
        skipInstall: true,
        force: true,
      },
      testContext({ cwd: dir }),
    );
    await writeFile(
      path.join(dir, 'src/main.ts'),
      (await read('src/main.ts')).replace('// +kop:scaffold:controllers', ''),
    );
    const before = await snapshot(dir);
    const error = await create(MEMCACHED).run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KopError);
    expect((error as KopError).message).toMatch(/src\/main\.ts has no `\/\/ \+kop:scaffold:controllers` marker/);
    expect(await snapshot(dir)).toEqual(before);
  });
});
