import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { findControlPlaneBinaries, startControlPlane } from '../../src/testing/index.js';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * The built CLI (bin/kop.js -> dist/) adds APIs to a project made by `kop init`, and the
 * scaffolded types, reconcilers and main.ts type-check with `tsc --strict` against the
 * built `kop/api`; `kop generate manifests` turns them into CRDs that a real API server
 * (kop/testing) accepts, with the samples. kop is linked into the project's node_modules
 * instead of installed, so the test needs no registry. Needs `npm run build` and
 * `kop setup-envtest` first.
 */
const TIMEOUT = 120_000;

describe('kop create api end to end', () => {
  let parent: string;
  let project: string;
  const kop = (args: string[]) =>
    execa('node', [KOP_BIN, ...args], { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
  const read = (file: string) => readFile(path.join(project, file), 'utf8');

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/api/index.d.ts']);
    ({ parent, project } = await initLinkedProject('demo', 'kop-e2e-api-'));
  }, TIMEOUT);

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'adds kinds, a version and a cluster-scoped kind through the CLI flags',
    async () => {
      const first = await kop([
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--yes',
      ]);
      expect(first.exitCode, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/CREATE api\/cache\/v1alpha1\/memcached\.types\.ts[^]*UPDATE src\/main\.ts/);

      const again = await kop([
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--yes',
      ]);
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toMatch(
        /^error: Memcached cache\.example\.com\/v1alpha1 already exists in PROJECT[^]*hint: pass --force/,
      );

      const bad = await kop(['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'memcached', '--yes']);
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/--kind: invalid kind "memcached": a kind must be UpperCamelCase/);

      const second = await kop([
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'RedisCluster',
        '--yes',
      ]);
      expect(second.exitCode, second.stderr).toBe(0);
      const version = await kop([
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1beta1',
        '--kind',
        'Memcached',
        '--yes',
      ]);
      expect(version.exitCode, version.stderr).toBe(0);
      expect(version.stderr).toContain('mark exactly one of them with +kubebuilder:storageversion');
      const cluster = await kop([
        'create',
        'api',
        '--group',
        'infra',
        '--version',
        'v1',
        '--kind',
        'Tenant',
        '--no-namespaced',
        '--no-controller',
        '--yes',
      ]);
      expect(cluster.exitCode, cluster.stderr).toBe(0);

      const dry = await kop([
        'create',
        'api',
        '--group',
        'web',
        '--version',
        'v1',
        '--kind',
        'Site',
        '--dry-run',
        '--yes',
      ]);
      expect(dry.exitCode).toBe(0);
      expect(dry.stdout).toMatch(/CREATE api\/web\/v1\/site\.types\.ts[^]*dry run: nothing was written/);
      expect(existsSync(path.join(project, 'api/web'))).toBe(false);

      const main = await read('src/main.ts');
      expect(main.match(/new MemcachedReconciler\(\)/g)).toHaveLength(1);
      expect(main).toContain('new RedisClusterReconciler()');
      expect(main).not.toContain('TenantReconciler');
    },
    TIMEOUT,
  );

  it(
    'the scaffolded API, reconcilers and main.ts pass tsc --strict with kop/api, also after adding fields',
    async () => {
      // Fields as a user adds them: integers, quantities and core types from kop/api.
      const typesFile = 'api/cache/v1alpha1/memcached.types.ts';
      const types = (await read(typesFile))
        .replace(
          "import type { Condition, ListMeta, ObjectMeta } from 'kop/api';",
          "import type { Condition, ListMeta, ObjectMeta, Quantity, ResourceRequirements, Toleration, int32 } from 'kop/api';",
        )
        .replace(
          '  foo?: string;\n',
          '  foo?: string;\n  /** +kubebuilder:validation:Minimum=1 */\n  replicas?: int32;\n  memory?: Quantity;\n  resources?: ResourceRequirements;\n  tolerations?: Toleration[];\n',
        );
      await writeFile(path.join(project, typesFile), types);
      await writeFile(
        path.join(project, 'src/use-types.ts'),
        [
          "import type { Memcached, MemcachedList } from '../api/cache/v1alpha1/memcached.types.js';",
          "import { API_VERSION } from '../api/cache/v1alpha1/groupversion.js';",
          '',
          'export const sample: Memcached = {',
          '  apiVersion: API_VERSION,',
          "  kind: 'Memcached',",
          "  metadata: { name: 'm', namespace: 'default' },",
          "  spec: { replicas: 3, memory: '64Mi', resources: { limits: { cpu: '500m' } }, tolerations: [{ key: 'k', operator: 'Exists' }] },",
          "  status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Up', message: '', lastTransitionTime: '2026-01-02T03:04:05Z' }] },",
          '};',
          'export const list: MemcachedList = { items: [sample] };',
          '',
        ].join('\n'),
      );
      // The reconcilers import their kind's descriptor from the generated typed client. Two
      // versions of Memcached and no storage version yet: generate says what to do.
      const missing = await kop(['generate', 'client']);
      expect(missing.exitCode).not.toBe(0);
      expect(missing.stderr).toContain('+kubebuilder:storageversion');
      const v1alpha1 = 'api/cache/v1alpha1/memcached.types.ts';
      await writeFile(
        path.join(project, v1alpha1),
        (await read(v1alpha1)).replace(
          ' * +kubebuilder:subresource:status\n',
          ' * +kubebuilder:subresource:status\n * +kubebuilder:storageversion\n',
        ),
      );
      const clients = await kop(['generate', 'client']);
      expect(clients.exitCode, clients.stderr).toBe(0);
      // The project's tsconfig covers api/, src/ and test/ (the scaffolded reconciler tests too).
      const checked = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);

      // And the check can fail: a wrong field type is an error.
      const good = await read('src/use-types.ts');
      await writeFile(path.join(project, 'src/use-types.ts'), good.replace('replicas: 3', "replicas: 'three'"));
      const broken = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(broken.exitCode).not.toBe(0);
      expect(broken.stdout).toContain('src/use-types.ts');
      await writeFile(path.join(project, 'src/use-types.ts'), good);
    },
    TIMEOUT,
  );

  it(
    'kop generate manifests makes CRDs the API server accepts, and the samples apply',
    async () => {
      // v1alpha1 of Memcached is the storage version (marked in the test above).
      const generate = await kop(['generate', 'manifests']);
      expect(generate.exitCode, generate.stderr).toBe(0);

      const crd = parseYaml(await read('config/crd/bases/cache.example.com_memcacheds.yaml'));
      expect(crd.spec.scope).toBe('Namespaced');
      type Version = {
        name: string;
        storage: boolean;
        schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, any> } } } };
      };
      const versions = crd.spec.versions as Version[];
      expect(Object.fromEntries(versions.map((v) => [v.name, v.storage]))).toEqual({ v1alpha1: true, v1beta1: false });
      const spec = versions.find((v) => v.name === 'v1alpha1')!.schema.openAPIV3Schema.properties.spec.properties;
      expect(spec.replicas).toEqual({ format: 'int32', minimum: 1, type: 'integer' });
      expect(spec.memory['x-kubernetes-int-or-string']).toBe(true);
      expect(spec.resources.properties.limits.additionalProperties['x-kubernetes-int-or-string']).toBe(true);
      expect(parseYaml(await read('config/crd/bases/infra.example.com_tenants.yaml')).spec.scope).toBe('Cluster');
      const role = await read('config/rbac/role.yaml');
      expect(role).toContain('memcacheds/status');
      expect(role).not.toContain('tenants');

      const binaries = findControlPlaneBinaries();
      const plane = await startControlPlane({ crds: [path.join(project, 'config/crd/bases')] });
      try {
        const kubectl = (args: string[], input?: string) =>
          execa(binaries.kubectl!, ['--kubeconfig', plane.kubeconfigPath, ...args], {
            cwd: project,
            reject: false,
            input,
          });
        const applied = await kubectl(['apply', '-k', 'config/samples']);
        expect(applied.exitCode, applied.stderr).toBe(0);
        expect(applied.stdout).toMatch(/memcached\.cache\.example\.com\/memcached-sample (created|configured)/);
        expect(applied.stdout).toContain('rediscluster.cache.example.com/rediscluster-sample created');
        expect(applied.stdout).toContain('tenant.infra.example.com/tenant-sample created');

        const got = await kubectl([
          'get',
          'memcacheds.v1alpha1.cache.example.com',
          'memcached-sample',
          '-n',
          'default',
          '-o',
          'json',
        ]);
        expect(got.exitCode, got.stderr).toBe(0);
        expect(JSON.parse(got.stdout)).toMatchObject({
          apiVersion: 'cache.example.com/v1alpha1',
          kind: 'Memcached',
          spec: { foo: 'bar' },
        });

        const invalid = await kubectl(
          ['apply', '-f', '-'],
          'apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata:\n  name: bad\n  namespace: default\nspec:\n  replicas: 0\n',
        );
        expect(invalid.exitCode).not.toBe(0);
        expect(invalid.stderr).toMatch(
          /spec\.replicas: Invalid value: 0: spec\.replicas in body should be greater than or equal to 1/,
        );
      } finally {
        await plane.stop();
      }
    },
    TIMEOUT,
  );

  it(
    "the project's own tests, with the scaffolded reconciler tests, pass against the control plane",
    async () => {
      expect(existsSync(path.join(project, 'test/controllers/memcached.controller.test.ts'))).toBe(true);
      expect(existsSync(path.join(project, 'test/controllers/rediscluster.controller.test.ts'))).toBe(true);
      const test = await execa(path.join(project, 'node_modules/.bin/vitest'), ['run', 'test/controllers'], {
        cwd: project,
        reject: false,
        env: { CI: 'true', NO_COLOR: '1' },
      });
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toMatch(/Tests\s+2 passed/);
    },
    TIMEOUT,
  );
});
