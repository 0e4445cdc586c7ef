import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { findControlPlaneBinaries } from '../../src/testing/index.js';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * Kubebuilder's with-plugins commands, as its testdata script spells them, through the built CLI:
 * two deploy-image kinds and the grafana and helm plugins. The project passes `tsc --strict`,
 * its manifests carry the images and RBAC, and its own reconciler tests (the scaffolded
 * deploy-image tests) pass against a real control plane. Needs `npm run build` first.
 */
const TIMEOUT = 300_000;

describe('kop --plugins end to end', () => {
  let parent: string;
  let project: string;
  const kop = (args: string[]) =>
    execa('node', [KOP_BIN, ...args], { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
  const read = (file: string) => readFile(path.join(project, file), 'utf8');

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/api/index.d.ts']);
    ({ parent, project } = await initLinkedProject('with-plugins', 'kop-e2e-plugins-'));
  }, TIMEOUT);

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    "takes Kubebuilder's deploy-image and edit commands as it spells them, and refuses bad ones with nothing written",
    async () => {
      const before = await read('PROJECT');
      const noPlugin = await kop([
        'create',
        'api',
        '--group',
        'example.com',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--image=memcached:1.6.26-alpine3.19',
      ]);
      expect(noPlugin.exitCode).toBe(2);
      expect(noPlugin.stderr).toContain('--image belongs to the deploy-image plugin');
      const unknown = await kop(['edit', '--plugins=grafana.kubebuilder.io/v9']);
      expect(unknown.exitCode).toBe(2);
      expect(unknown.stderr).toMatch(/--plugins: unknown plugin "grafana\.kubebuilder\.io\/v9"[^]*grafana\/v1-alpha/);
      expect(await read('PROJECT')).toBe(before);
      expect(existsSync(path.join(project, 'api/example.com'))).toBe(false);

      const memcached = await kop([
        'create',
        'api',
        '--group',
        'example.com',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--image=memcached:1.6.26-alpine3.19',
        '--image-container-command=memcached,--memory-limit=64,-o,modern,-v',
        '--image-container-port=11211',
        '--run-as-user=1001',
        '--plugins=deploy-image/v1-alpha',
        '--make=false',
      ]);
      expect(memcached.exitCode, memcached.stderr).toBe(0);
      const busybox = await kop([
        'create',
        'api',
        '--group',
        'example.com',
        '--version',
        'v1alpha1',
        '--kind',
        'Busybox',
        '--image=busybox:1.36.1',
        '--plugins=deploy-image/v1-alpha',
        '--make=false',
      ]);
      expect(busybox.exitCode, busybox.stderr).toBe(0);
      const grafana = await kop(['edit', '--plugins=grafana.kubebuilder.io/v1-alpha']);
      expect(grafana.exitCode, grafana.stderr).toBe(0);
      expect(existsSync(path.join(project, 'grafana/controller-runtime-metrics.json'))).toBe(true);

      const recorded = parseYaml(await read('PROJECT')) as {
        plugins: Record<string, { resources?: { kind: string }[] }>;
      };
      expect(Object.keys(recorded.plugins)).toEqual([
        'deploy-image.go.kubebuilder.io/v1-alpha',
        'grafana.kubebuilder.io/v1-alpha',
      ]);
      expect(recorded.plugins['deploy-image.go.kubebuilder.io/v1-alpha']!.resources!.map((r) => r.kind)).toEqual([
        'Memcached',
        'Busybox',
      ]);
    },
    TIMEOUT,
  );

  it(
    'the project type-checks, and its manifests carry the images and the RBAC of the deploy-image controllers',
    async () => {
      const generate = await kop(['generate']);
      expect(generate.exitCode, generate.stderr).toBe(0);
      const checked = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);

      const role = parseYaml(await read('config/rbac/role.yaml')) as {
        rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
      };
      expect(role.rules).toContainEqual(expect.objectContaining({ apiGroups: ['apps'], resources: ['deployments'] }));
      expect(role.rules.some((rule) => rule.apiGroups.includes('') && rule.resources.includes('pods'))).toBe(true);

      const crd = parseYaml(await read('config/crd/bases/example.com.example.com_memcacheds.yaml')) as {
        spec: {
          versions: {
            schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } };
          }[];
        };
      };
      expect(crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties).toMatchObject({
        size: { type: 'integer', format: 'int32', minimum: 1, maximum: 3, default: 1 },
        containerPort: { type: 'integer', default: 11211 },
      });

      const binaries = findControlPlaneBinaries();
      const built = await execa(binaries.kubectl!, ['kustomize', 'config/default'], { cwd: project, reject: false });
      expect(built.exitCode, built.stderr).toBe(0);
      const manager = parseAllDocuments(built.stdout)
        .map(
          (doc) =>
            doc.toJS() as {
              kind: string;
              spec?: {
                template?: { spec?: { containers?: { name: string; env?: { name: string; value?: string }[] }[] } };
              };
            },
        )
        .find((object) => object.kind === 'Deployment')!;
      const env = manager.spec!.template!.spec!.containers!.find((container) => container.name === 'manager')!.env;
      expect(env).toEqual(
        expect.arrayContaining([
          { name: 'MEMCACHED_IMAGE', value: 'memcached:1.6.26-alpine3.19' },
          { name: 'BUSYBOX_IMAGE', value: 'busybox:1.36.1' },
        ]),
      );

      // Kubebuilder's helm plugin name runs kop's chart, recorded under its key.
      const helm = await kop(['edit', '--plugins', 'helm.kubebuilder.io/v2-alpha']);
      expect(helm.exitCode, helm.stderr).toBe(0);
      expect(existsSync(path.join(project, 'dist/chart/Chart.yaml'))).toBe(true);
      const plugins = (parseYaml(await read('PROJECT')) as { plugins: Record<string, unknown> }).plugins;
      expect(Object.keys(plugins)).toEqual([
        'deploy-image.go.kubebuilder.io/v1-alpha',
        'grafana.kubebuilder.io/v1-alpha',
        'helm.kubebuilder.io/v2-alpha',
      ]);
    },
    TIMEOUT,
  );

  it(
    'the scaffolded deploy-image reconciler tests pass against the control plane, and build their objects from the fixture',
    async () => {
      const test = await execa(path.join(project, 'node_modules/.bin/vitest'), ['run', 'test/controllers'], {
        cwd: project,
        reject: false,
        env: { CI: 'true', NO_COLOR: '1' },
      });
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toMatch(/Tests\s+2 passed/);

      // A required field in the kind's spec: tsc names one place, the kind's fixture, and filling
      // it in there makes the deploy-image test pass again.
      const types = path.join(project, 'api/example.com/v1alpha1/busybox.types.ts');
      await writeFile(
        types,
        (await readFile(types, 'utf8')).replace(
          'export interface BusyboxSpec {',
          'export interface BusyboxSpec {\n  /** motto is what the Busybox says. */\n  motto: string;',
        ),
      );
      const generate = await kop(['generate']);
      expect(generate.exitCode, generate.stderr).toBe(0);
      const broken = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      const errors = broken.stdout.split('\n').filter((line) => /error TS/.test(line));
      expect(errors).toEqual([
        expect.stringMatching(
          /^test\/fixtures\/example\.com\/v1alpha1\/busybox\.ts\(\d+,\d+\): error TS2741: Property 'motto' is missing/,
        ),
      ]);
      const fixture = path.join(project, 'test/fixtures/example.com/v1alpha1/busybox.ts');
      const before = await readFile(fixture, 'utf8');
      expect(before).toContain('spec: {},');
      await writeFile(fixture, before.replace('spec: {},', "spec: { motto: 'hello' },"));
      const fixed = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(fixed.exitCode, fixed.stdout).toBe(0);
      const again = await execa(path.join(project, 'node_modules/.bin/vitest'), ['run', 'test/controllers'], {
        cwd: project,
        reject: false,
        env: { CI: 'true', NO_COLOR: '1' },
      });
      expect(again.exitCode, again.stdout + again.stderr).toBe(0);
      expect(again.stdout).toMatch(/Tests\s+2 passed/);
    },
    TIMEOUT,
  );
});
