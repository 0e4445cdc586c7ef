import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { builtinTypes, findBuiltinKind } from '../../src/project/builtin-kinds.js';

const builtinKinds = () => builtinTypes().map(([descriptor, type]) => ({ descriptor, type }));
import { findControlPlaneBinaries, startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { initLinkedProject, KOP_BIN, KOP_ROOT, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * Reconcilers for kinds the project does not own, and several reconcilers of one kind, through
 * the built CLI as Kubebuilder users spell it: every built-in kind kop/runtime has a descriptor
 * for, cert-manager-like kinds from a CRD file (test/fixtures/external-crds, written for these
 * tests) and from `kop import crd`, a kind from an npm package, and a kind with two named
 * reconcilers. The project passes `tsc --strict`, its scaffolded reconciler tests pass against
 * the control plane of test/global-setup.ts, and the built manager (src/main.ts) reconciles a
 * Deployment on a real API server. Needs `npm run build` and the envtest binaries.
 */
const CRDS = path.join(KOP_ROOT, 'test/fixtures/external-crds/issuers.yaml');
const TIMEOUT = 180_000;

describe('kop create api for kinds the project does not own', () => {
  let parent: string;
  let project: string;
  const kop = (args: string[]) =>
    execa('node', [KOP_BIN, ...args], { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
  const read = (file: string) => readFile(path.join(project, file), 'utf8');

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/api/index.d.ts', 'dist/runtime/index.js']);
    ({ parent, project } = await initLinkedProject('demo', 'kop-e2e-unowned-'));
  }, TIMEOUT);

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'scaffolds them with Kubebuilder spellings, and records them in PROJECT as Kubebuilder does',
    async () => {
      // Every built-in kind, with the group spelt as Kubebuilder users spell it (core, apps, events, ...).
      for (const { type } of builtinKinds()) {
        const group =
          type.kind === 'Secret' ? '' : findBuiltinKind(type.group || 'core', type.version, type.kind)!.project.group;
        const result = await kop([
          'create',
          'api',
          '--group',
          group,
          '--version',
          type.version,
          '--kind',
          type.kind,
          '--resource=false',
          '--controller=true',
          '--make=false',
        ]);
        expect(result.exitCode, `${type.kind}: ${result.stderr}`).toBe(0);
      }
      // Two reconcilers of one kind (Kubebuilder's testdata: captain and captain-backup).
      for (const args of [
        ['--controller=true', '--resource=true', '--controller-name=captain'],
        ['--controller=true', '--resource=false', '--controller-name=captain-backup'],
      ]) {
        const result = await kop([
          'create',
          'api',
          '--group',
          'crew',
          '--version',
          'v1',
          '--kind',
          'Captain',
          ...args,
          '--make=false',
        ]);
        expect(result.exitCode, result.stderr).toBe(0);
      }
      const twice = await kop([
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Captain',
        '--resource=false',
        '--controller-name=captain-backup',
      ]);
      expect(twice.exitCode).toBe(1);
      expect(twice.stderr).toContain('already has a reconciler named captain-backup');

      // Bad input: a clear error naming the flags, exit code 2, nothing written.
      const before = await read('PROJECT');
      const noPath = await kop([
        'create',
        'api',
        '--group',
        'cert-manager',
        '--version',
        'v1',
        '--kind',
        'Issuer',
        '--resource=false',
        '--external-api-domain=io',
      ]);
      expect(noPath.exitCode).toBe(2);
      expect(noPath.stderr).toContain('error: --external-api-domain needs --external-api-path');
      expect(await read('PROJECT')).toBe(before);

      // An external kind from a CRD file (imported in the same plan), and one imported before.
      await writeFile(path.join(project, 'issuers.yaml'), await readFile(CRDS, 'utf8'));
      const issuer = await kop([
        'create',
        'api',
        '--group',
        'cert-manager',
        '--version',
        'v1',
        '--kind',
        'Issuer',
        '--controller=true',
        '--resource=false',
        '--external-api-path=api/cert-manager/v1',
        '--external-api-domain=io',
        '--external-api-module=./issuers.yaml',
      ]);
      expect(issuer.exitCode, issuer.stderr).toBe(0);
      expect(issuer.stdout).toContain('CREATE api/cert-manager/v1/issuer.types.ts');
      const clusterIssuer = await kop([
        'create',
        'api',
        '--group',
        'cert-manager',
        '--version',
        'v1',
        '--kind',
        'ClusterIssuer',
        '--no-resource',
        '--controller',
      ]);
      expect(clusterIssuer.exitCode, clusterIssuer.stderr).toBe(0);

      // An external kind from an npm package (here a local one, linked as npm install would link it).
      const widgetApi = path.join(project, 'vendor/widget-api');
      await mkdir(widgetApi, { recursive: true });
      await writeFile(
        path.join(widgetApi, 'package.json'),
        JSON.stringify({
          name: '@acme/widget-api',
          version: '1.0.0',
          type: 'module',
          exports: { '.': { types: './index.d.ts', default: './index.js' } },
        }),
      );
      await writeFile(
        path.join(widgetApi, 'index.js'),
        "export const widgetType = { group: 'acme.example.org', version: 'v1', kind: 'Widget', resource: 'widgets', namespaced: true };\n",
      );
      await writeFile(
        path.join(widgetApi, 'index.d.ts'),
        "import type { ObjectMeta } from 'kop/api';\nimport type { ResourceType } from 'kop/runtime';\nexport interface Widget { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: { size?: number } }\nexport declare const widgetType: ResourceType<Widget>;\n",
      );
      await mkdir(path.join(project, 'node_modules/@acme'));
      await symlink(widgetApi, path.join(project, 'node_modules/@acme/widget-api'), 'dir');
      const widget = await kop([
        'create',
        'api',
        '--group',
        'acme',
        '--version',
        'v1',
        '--kind',
        'Widget',
        '--resource=false',
        '--controller=true',
        '--external-api-path',
        '@acme/widget-api',
        '--external-api-domain',
        'example.org',
        '--external-api-module',
        '@acme/widget-api@file:vendor/widget-api',
      ]);
      expect(widget.exitCode, widget.stderr).toBe(0);
      expect(JSON.parse(await read('package.json')).dependencies['@acme/widget-api']).toBe('file:vendor/widget-api');

      const resources = (parseYaml(await read('PROJECT')) as { resources: Record<string, unknown>[] }).resources;
      const entry = (kind: string) => resources.find((r) => r.kind === kind);
      expect(entry('Deployment')).toEqual({
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        plural: 'deployments',
        core: true,
        path: 'k8s.io/api/apps/v1',
        controller: true,
      });
      expect(entry('ConfigMap')).toMatchObject({ group: 'core', core: true, path: 'k8s.io/api/core/v1' });
      expect(entry('Event')).toMatchObject({ group: 'events', domain: 'k8s.io', core: true });
      expect(entry('Captain')).toMatchObject({ controllers: [{ name: 'captain' }, { name: 'captain-backup' }] });
      expect(entry('Captain')).not.toHaveProperty('controller');
      expect(entry('Issuer')).toMatchObject({
        group: 'cert-manager',
        domain: 'io',
        external: true,
        module: './issuers.yaml',
        path: 'api/cert-manager/v1/issuer.types.ts',
        controller: true,
      });
      expect(entry('ClusterIssuer')).toMatchObject({ external: true, module: './issuers.yaml', controller: true });
      expect(entry('Widget')).toMatchObject({
        group: 'acme',
        domain: 'example.org',
        external: true,
        module: '@acme/widget-api@file:vendor/widget-api',
        path: '@acme/widget-api',
        plural: 'widgets',
        controller: true,
      });
    },
    TIMEOUT,
  );

  it(
    'generates RBAC for them, and the project passes tsc --strict',
    async () => {
      const generate = await kop(['generate']);
      expect(generate.exitCode, generate.stderr).toBe(0);
      // No CRD for kinds of other projects; the project's own Captain has one.
      expect(generate.stdout).toContain('config/crd/bases/crew.example.com_captains.yaml');
      expect(generate.stdout).not.toMatch(/cert-manager\.io_issuers|deployments\.yaml/);
      const role = parseYaml(await read('config/rbac/role.yaml')) as {
        rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
      };
      const rule = (group: string, resource: string) =>
        role.rules.find((r) => r.apiGroups.includes(group) && r.resources.includes(resource));
      expect(rule('apps', 'deployments')?.verbs).toContain('watch');
      expect(rule('', 'configmaps')?.verbs).toContain('watch');
      expect(rule('events.k8s.io', 'events')?.verbs).toContain('watch');
      expect(rule('cert-manager.io', 'issuers')?.verbs).toContain('watch');
      expect(rule('acme.example.org', 'widgets')?.verbs).toContain('watch');

      const checked = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "the scaffolded reconciler tests pass against the project's control plane",
    async () => {
      const test = await execa(path.join(project, 'node_modules/.bin/vitest'), ['run', 'test/controllers'], {
        cwd: project,
        reject: false,
        env: { CI: 'true', NO_COLOR: '1' },
      });
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      // One per built-in kind, and the two reconcilers of Captain.
      expect(test.stdout).toMatch(new RegExp(`Tests\\s+${builtinKinds().length + 2} passed`));
    },
    TIMEOUT,
  );

  it(
    'the built manager registers every reconciler under its name and reconciles a Deployment',
    async () => {
      // `npm run build` is `kop generate` (its prebuild, run by the test before) and then
      // `tsc -p tsconfig.build.json`: that compile, in the run's one TypeScript compiler
      // (test/helpers/typecheck.ts), which writes dist/ as tsc does.
      const scripts = (JSON.parse(await read('package.json')) as { scripts: Record<string, string> }).scripts;
      expect([scripts.prebuild, scripts.build]).toEqual(['kop generate', 'tsc -p tsconfig.build.json']);
      const build = await tsc(['-p', 'tsconfig.build.json'], project);
      expect(build.exitCode, build.stdout).toBe(0);
      let plane: ControlPlane | undefined;
      let manager: ResultPromise | undefined;
      try {
        // The kinds of other operators are served too, from their CRDs.
        plane = await startControlPlane({
          crds: [
            path.join(project, 'config/crd/bases'),
            CRDS,
            path.join(KOP_ROOT, 'test/fixtures/external-crds/widgets.yaml'),
          ],
        });
        manager = execa(
          'node',
          [
            'dist/src/main.js',
            '--kubeconfig',
            plane.kubeconfigPath,
            '--metrics-bind-address',
            '0',
            '--health-probe-bind-address',
            '0',
          ],
          {
            cwd: project,
            reject: false,
            env: { KOP_LOG_LEVEL: 'debug', KOP_LOG_FORMAT: 'json' },
          },
        );
        const lines: Record<string, unknown>[] = [];
        manager.stdout!.on('data', (chunk: Buffer) => {
          for (const line of chunk.toString().split('\n'))
            if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
        });
        manager.stderr!.on('data', (chunk: Buffer) => {
          for (const line of chunk.toString().split('\n'))
            if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
        });
        const started = () => new Set(lines.filter((l) => l.msg === 'controller started').map((l) => l.controller));
        await eventually(
          () => started().has('deployment') && started().has('captain-backup') && started().has('widget'),
        );
        expect([...started()].sort()).toEqual(
          [
            ...builtinKinds().map(({ type }) => type.kind.toLowerCase()),
            'captain',
            'captain-backup',
            'clusterissuer',
            'issuer',
            'widget',
          ].sort(),
        );

        const deployment = {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web', namespace: 'default' },
          spec: {
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] },
            },
          },
        };
        const kubectl = findControlPlaneBinaries().kubectl!;
        const apply = await execa(kubectl, ['--kubeconfig', plane.kubeconfigPath, 'apply', '-f', '-'], {
          reject: false,
          input: JSON.stringify(deployment),
        });
        expect(apply.exitCode, apply.stderr).toBe(0);
        await eventually(() =>
          lines.some((l) => l.msg === 'reconciled' && l.controller === 'deployment' && l.name === 'web'),
        );
      } finally {
        manager?.kill('SIGTERM');
        await manager;
        await plane?.stop();
      }
    },
    TIMEOUT,
  );
});

async function eventually(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
