import { copyFile, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KopError, UsageError } from '../../src/base/errors.js';
import { builtinTypes, findBuiltinKind } from '../../src/project/builtin-kinds.js';

const builtinKinds = () => builtinTypes().map(([descriptor, type]) => ({ descriptor, type }));
import { runCreateApi, type CreateApiOptions } from '../../src/create-api/run-create-api.js';
import { runInit } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { controllerNamesOf } from '../../src/project/resource-layout.js';
import { checkControllerName } from '../../src/project/resource.js';
import { testContext } from '../helpers/fake-context.js';
import { preparedProject } from '../helpers/prepared-project.js';
import { listFiles } from '../helpers/files.js';

const CRDS = fileURLToPath(new URL('../fixtures/external-crds/issuers.yaml', import.meta.url));
const DEPLOYMENT: CreateApiOptions = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  resource: false,
  controller: true,
};
const CAPTAIN: CreateApiOptions = { group: 'crew', version: 'v1', kind: 'Captain', resource: true, controller: true };
const ISSUER_FLAGS: CreateApiOptions = {
  group: 'cert-manager',
  version: 'v1',
  kind: 'Issuer',
  resource: false,
  controller: true,
  externalApiPath: 'api/cert-manager/v1',
  externalApiDomain: 'io',
};

/** Every file's content, to show that a refused run wrote nothing. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files = await listFiles(dir);
  return Object.fromEntries(
    await Promise.all(files.map(async (file) => [file, await readFile(path.join(dir, file), 'utf8')] as const)),
  );
}

describe('kop create api for kinds the project does not own, and named reconcilers', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');
  const project = async () => parseProjectFile(await read('PROJECT'));
  const create = (options: CreateApiOptions) => runCreateApi(options, testContext({ cwd: dir }));
  /** Runs a command that must fail, and checks it wrote nothing. */
  const refused = async (
    options: CreateApiOptions,
    error: RegExp,
    type: new (...args: never[]) => Error = KopError,
  ) => {
    const before = await snapshot(dir);
    const run = create(options);
    await expect(run).rejects.toThrow(error);
    await expect(run).rejects.toBeInstanceOf(type);
    expect(await snapshot(dir)).toEqual(before);
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

  describe('built-in kinds', () => {
    it('scaffolds a reconciler of apps/v1 Deployment with kop/runtime descriptor, RBAC for apps, and PROJECT core: true', async () => {
      const context = testContext({ cwd: dir });
      await runCreateApi(DEPLOYMENT, context);
      expect(context.out.lines.slice(0, 4)).toEqual([
        'UPDATE PROJECT',
        'CREATE src/controllers/deployment.controller.ts',
        'UPDATE src/main.ts',
        'CREATE test/controllers/deployment.controller.test.ts',
      ]);
      // Kubebuilder's PROJECT entry for a core kind: domain "" for apps (left out when written), its Go package as path.
      expect((await project()).resources).toEqual([
        {
          group: 'apps',
          version: 'v1',
          kind: 'Deployment',
          plural: 'deployments',
          domain: '',
          core: true,
          path: 'k8s.io/api/apps/v1',
          controller: true,
        },
      ]);
      const controller = await read('src/controllers/deployment.controller.ts');
      // One import, however Prettier wraps it.
      expect(controller.replace(/\s+/g, ' ').replace(/, \}/g, ' }')).toContain(
        "import { isNotFound, type Manager, type ReconcileContext, type ReconcileResult, type Request } from 'kop/runtime';",
      );
      expect(controller).toContain("import { appsV1DeploymentType } from 'kop/runtime/builtin';");
      expect(controller).toContain("import type { Deployment } from 'kop/api';");
      expect(controller).toContain(
        '// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete',
      );
      expect(controller).toContain("manager.controller('deployment').for(appsV1DeploymentType)");
      expect(controller).not.toContain('finalizer(');
      const main = await read('src/main.ts');
      expect(main).toContain("import { DeploymentReconciler } from './controllers/deployment.controller.js';");
      expect(main).toContain('new DeploymentReconciler().setupWithManager(manager);');
      // No types, CRD, sample or roles for a kind Kubernetes owns.
      expect(
        (await listFiles(dir)).filter(
          (file) => (file.startsWith('api/') && file !== 'api/.gitkeep') || file.includes('deployment_'),
        ),
      ).toEqual([]);
    });

    it.each([
      ['core', 'ConfigMap', { group: 'core', domain: '' }, 'groups=core,resources=configmaps'],
      ['', 'Secret', { group: 'core', domain: '' }, 'groups=core,resources=secrets'],
      ['batch', 'Job', { group: 'batch', domain: '' }, 'groups=batch,resources=jobs'],
      ['events', 'Event', { group: 'events', domain: 'k8s.io' }, 'groups=events.k8s.io,resources=events'],
      [
        'coordination.k8s.io',
        'Lease',
        { group: 'coordination', domain: 'k8s.io' },
        'groups=coordination.k8s.io,resources=leases',
      ],
    ])(
      '--group %j --kind %s is the built-in kind, recorded as Kubebuilder records it',
      async (group, kind, recorded, rbac) => {
        await create({ group, version: 'v1', kind, resource: false, controller: true });
        expect((await project()).resources).toEqual([
          {
            ...recorded,
            version: 'v1',
            kind,
            plural: `${kind.toLowerCase()}s`,
            core: true,
            path: `k8s.io/api/${recorded.group}/v1`,
            controller: true,
          },
        ]);
        expect(await read(`src/controllers/${kind.toLowerCase()}.controller.ts`)).toContain(
          `+kubebuilder:rbac:${rbac},`,
        );
      },
    );

    it('knows exactly the descriptors kop/runtime/builtin exports, and has a sample of each for the test', async () => {
      expect(
        builtinKinds()
          .map(({ descriptor }) => descriptor)
          .sort(),
      ).toEqual([
        'appsV1DeploymentType',
        'appsV1StatefulSetType',
        'batchV1CronJobType',
        'batchV1JobType',
        'coordinationV1LeaseType',
        'coreV1ConfigMapType',
        'coreV1NamespaceType',
        'coreV1PersistentVolumeClaimType',
        'coreV1PodType',
        'coreV1SecretType',
        'coreV1ServiceAccountType',
        'coreV1ServiceType',
        'eventsV1EventType',
      ]);
      expect(findBuiltinKind('apps', 'v1beta1', 'Deployment')).toBeUndefined();
      for (const { type } of builtinKinds()) {
        const group = type.group === '' ? 'core' : type.group;
        await create({ group, version: type.version, kind: type.kind, resource: false, controller: true });
        expect(await read(`test/controllers/${type.kind.toLowerCase()}.controller.test.ts`)).toContain(
          `kind: '${type.kind}',`,
        );
      }
    });

    it('a second reconciler of the same built-in kind needs a name of its own', async () => {
      await create(DEPLOYMENT);
      await refused(
        DEPLOYMENT,
        /Deployment apps\/v1 already has a reconciler \(src\/controllers\/deployment\.controller\.ts\); kop create api wrote nothing/,
      );
      await create({ ...DEPLOYMENT, controllerName: 'deployment-audit' });
      expect((await project()).resources[0]).toMatchObject({
        controllers: [{ name: 'deployment' }, { name: 'deployment-audit' }],
      });
      expect(await read('src/controllers/deployment-audit.controller.ts')).toContain(
        'export class DeploymentAuditReconciler {',
      );
    });

    it("a kind that is neither the project's, imported nor built in: a clear error naming what kop knows, nothing written", async () => {
      await refused(
        { group: 'networking', version: 'v1', kind: 'Ingress', resource: false, controller: true },
        /no Ingress types at api\/networking\/v1\/ingress\.types\.ts[^]*neither a built-in kind nor one imported/,
      );
      const error = await create({
        group: 'networking',
        version: 'v1',
        kind: 'Ingress',
        resource: false,
        controller: true,
      }).catch((e: KopError) => e);
      expect((error as KopError).hint).toContain('apps/v1 Deployment');
    });

    it('--no-controller for a built-in kind has nothing to create', async () => {
      await refused({ ...DEPLOYMENT, controller: false }, /nothing to create/, UsageError);
    });
  });

  describe('--controller-name', () => {
    it('scaffolds several reconcilers of one kind, one file and class each, recorded as controllers: in PROJECT', async () => {
      await create({ ...CAPTAIN, controllerName: 'captain' });
      await create({ ...CAPTAIN, resource: false, controllerName: 'captain-backup' });
      expect((await project()).resources[0]).toMatchObject({
        kind: 'Captain',
        controllers: [{ name: 'captain' }, { name: 'captain-backup' }],
      });
      expect((await project()).resources[0]).not.toHaveProperty('controller');
      const backup = await read('src/controllers/captain-backup.controller.ts');
      expect(backup).toContain('export class CaptainBackupReconciler {');
      expect(backup).toContain("manager.controller('captain-backup')");
      expect(backup).toContain("static readonly finalizer = 'crew.example.com/captain-backup';");
      expect(await read('src/controllers/captain.controller.ts')).toContain(
        "static readonly finalizer = 'crew.example.com/finalizer';",
      );
      expect(await read('test/controllers/captain-backup.controller.test.ts')).toContain(
        "const NAMESPACE = 'captain-backup-test';",
      );
      const main = await read('src/main.ts');
      expect(main).toContain(
        'new CaptainReconciler().setupWithManager(manager);\n    new CaptainBackupReconciler().setupWithManager(manager);',
      );
    });

    it('turns an earlier controller: true into the reconciler named after the kind', async () => {
      await create(CAPTAIN);
      expect((await project()).resources[0]!.controller).toBe(true);
      await create({ ...CAPTAIN, resource: false, controllerName: 'captain-backup' });
      expect((await project()).resources[0]).toMatchObject({
        controllers: [{ name: 'captain' }, { name: 'captain-backup' }],
      });
      expect((await project()).resources[0]).not.toHaveProperty('controller');
    });

    it('refuses a duplicate name, a name another kind uses, and a bad name, writing nothing', async () => {
      await create({ ...CAPTAIN, controllerName: 'captain-backup' });
      await refused(
        { ...CAPTAIN, resource: false, controllerName: 'captain-backup' },
        /Captain crew\.example\.com\/v1 already has a reconciler named captain-backup/,
      );
      await create({ group: 'crew', version: 'v1', kind: 'FirstMate' });
      await refused(
        { ...CAPTAIN, resource: false, controllerName: 'firstmate' },
        /the reconciler firstmate of FirstMate crew\.example\.com\/v1 already has the name firstmate/,
      );
      await refused(
        { ...CAPTAIN, resource: false, controllerName: 'Captain_Backup' },
        /--controller-name: invalid controller name "Captain_Backup": a controller name must be a DNS-1035 label/,
        UsageError,
      );
      await refused({ ...CAPTAIN, resource: false, controllerName: '1st' }, /DNS-1035/, UsageError);
      await refused(
        { ...CAPTAIN, resource: false, controller: false, controllerName: 'captain-audit' },
        /--controller-name names a reconciler, but --controller is off/,
        UsageError,
      );
    });

    it('gives a kind of the same name in another group a reconciler of its own name', async () => {
      await create({ group: 'foo', version: 'v1', kind: 'Bar' });
      await refused(
        { group: 'fiz', version: 'v1', kind: 'Bar', controller: true },
        /a reconciler for kind Bar of group foo\.example\.com already uses src\/controllers\/bar\.controller\.ts/,
      );
      await create({ group: 'fiz', version: 'v1', kind: 'Bar', controllerName: 'fiz-bar' });
      const controller = await read('src/controllers/fiz-bar.controller.ts');
      expect(controller).toContain("import { barType } from '../../api/fiz/v1/bar.client.js';");
      expect(controller).toContain('export class FizBarReconciler {');
      expect((await project()).resources.find((r) => r.group === 'fiz')).toMatchObject({
        controllers: [{ name: 'fiz-bar' }],
      });
    });

    it('names classes and files as Kubebuilder does', () => {
      expect(controllerNamesOf('Captain')).toMatchObject({
        name: 'captain',
        stem: 'captain',
        className: 'CaptainReconciler',
      });
      expect(controllerNamesOf('Captain', 'captain')).toMatchObject({
        name: 'captain',
        stem: 'captain',
        className: 'CaptainReconciler',
      });
      expect(controllerNamesOf('Captain', 'captain-backup')).toMatchObject({
        name: 'captain-backup',
        stem: 'captain-backup',
        className: 'CaptainBackupReconciler',
      });
      expect(controllerNamesOf('Captain', 'a-2nd')).toMatchObject({
        name: 'a-2nd',
        stem: 'a-2nd',
        className: 'A2ndReconciler',
      });
      expect(checkControllerName('x'.repeat(64))).not.toBe(true);
      expect(checkControllerName('backup-')).not.toBe(true);
    });

    it('kop init --force puts every named reconciler back into main.ts', async () => {
      await create({ ...CAPTAIN, controllerName: 'captain' });
      await create({ ...CAPTAIN, resource: false, controllerName: 'captain-backup' });
      await create(DEPLOYMENT);
      await runInit(
        {
          projectName: 'demo',
          domain: 'example.com',
          owner: 'The demo authors',
          license: 'apache2',
          kopSource: 'file:../kop',
          skipInstall: true,
          force: true,
        },
        testContext({ cwd: dir }),
      );
      const main = await read('src/main.ts');
      for (const name of ['CaptainReconciler', 'CaptainBackupReconciler', 'DeploymentReconciler'])
        expect(main).toContain(`new ${name}().setupWithManager(manager);`);
    });
  });

  describe('external kinds', () => {
    it('--external-api-domain without --external-api-path is refused, naming both flags', async () => {
      await refused(
        { group: 'cert-manager', version: 'v1', kind: 'Issuer', resource: false, externalApiDomain: 'io' },
        /--external-api-domain needs --external-api-path/,
        UsageError,
      );
    });

    it('--external-api-module with a CRD file imports it in the same plan and records external, domain, module and path', async () => {
      await copyFile(CRDS, path.join(dir, 'issuers.yaml'));
      await create({ ...ISSUER_FLAGS, externalApiModule: './issuers.yaml' });
      const resources = (await project()).resources;
      expect(resources.find((r) => r.kind === 'Issuer')).toEqual({
        group: 'cert-manager',
        domain: 'io',
        version: 'v1',
        kind: 'Issuer',
        plural: 'issuers',
        path: 'api/cert-manager/v1/issuer.types.ts',
        external: true,
        module: './issuers.yaml',
        controller: true,
      });
      expect(resources.find((r) => r.kind === 'ClusterIssuer')).toMatchObject({
        external: true,
        module: './issuers.yaml',
      });
      const controller = await read('src/controllers/issuer.controller.ts');
      expect(controller).toContain("import { issuerType } from '../../api/cert-manager/v1/issuer.client.js';");
      expect(controller).toContain("import type { Issuer } from '../../api/cert-manager/v1/issuer.types.js';");
      expect(controller).toContain('+kubebuilder:rbac:groups=cert-manager.io,resources=issuers,');
      // No test: the kind's CRD is not one the project's test control plane installs.
      expect(await listFiles(dir)).not.toContain('test/controllers/issuer.controller.test.ts');
    });

    it('finds a kind imported with kop import crd by its folder group or full group, without the flags', async () => {
      await copyFile(CRDS, path.join(dir, 'issuers.yaml'));
      await create({ ...ISSUER_FLAGS, externalApiModule: './issuers.yaml' });
      await create({
        group: 'cert-manager.io',
        version: 'v1',
        kind: 'ClusterIssuer',
        resource: false,
        controller: true,
      });
      expect((await project()).resources.find((r) => r.kind === 'ClusterIssuer')).toMatchObject({
        external: true,
        controller: true,
      });
      expect(await read('src/controllers/clusterissuer.controller.ts')).toContain(
        "import { clusterIssuerType } from '../../api/cert-manager/v1/clusterissuer.client.js';",
      );
    });

    it('refuses a CRD module without the kind, a folder without its types, and a path outside api/, writing nothing', async () => {
      await copyFile(CRDS, path.join(dir, 'issuers.yaml'));
      await refused(
        { ...ISSUER_FLAGS, kind: 'Certificate', externalApiModule: './issuers.yaml' },
        /--external-api-module \.\/issuers\.yaml: no Certificate cert-manager\.io\/v1 in it/,
      );
      await refused(
        { ...ISSUER_FLAGS, externalApiDomain: 'example.org', externalApiModule: './issuers.yaml' },
        /no Issuer cert-manager\.example\.org\/v1 in it \(it has Issuer cert-manager\.io\/v1\)/,
      );
      await refused(ISSUER_FLAGS, /there is no api\/cert-manager\/v1\/issuer\.types\.ts/);
      await refused({ ...ISSUER_FLAGS, externalApiPath: './src' }, /must be under api\//, UsageError);
      await refused(
        { ...ISSUER_FLAGS, externalApiPath: "x'; evil" },
        /neither a folder under api\/ nor a module specifier/,
        UsageError,
      );
      await refused(
        { ...ISSUER_FLAGS, resource: true, externalApiModule: './issuers.yaml' },
        /--external-api-path is for a kind another project owns/,
        UsageError,
      );
    });

    it('--external-api-module with an npm package spec adds the dependency; the path is a module of that package', async () => {
      await create({
        group: 'acme',
        version: 'v1',
        kind: 'Widget',
        resource: false,
        controller: true,
        externalApiPath: '@acme/widget-api/v1',
        externalApiDomain: 'example.org',
        externalApiModule: '@acme/widget-api@^1.2.0',
      });
      const pkg = JSON.parse(await read('package.json')) as { dependencies: Record<string, string> };
      expect(pkg.dependencies['@acme/widget-api']).toBe('^1.2.0');
      expect(Object.keys(pkg.dependencies)).toEqual([...Object.keys(pkg.dependencies)].sort());
      expect((await project()).resources).toEqual([
        {
          group: 'acme',
          version: 'v1',
          kind: 'Widget',
          plural: 'widgets',
          domain: 'example.org',
          external: true,
          path: '@acme/widget-api/v1',
          module: '@acme/widget-api@^1.2.0',
          controller: true,
        },
      ]);
      const controller = await read('src/controllers/widget.controller.ts');
      expect(controller).toContain("import { widgetType } from '@acme/widget-api/v1';");
      expect(controller).toContain("import type { Widget } from '@acme/widget-api/v1';");
      expect(controller).toContain('+kubebuilder:rbac:groups=acme.example.org,resources=widgets,');
    });

    it('refuses a package path the module does not provide, or one package.json lacks, writing nothing', async () => {
      const widget = {
        group: 'acme',
        version: 'v1',
        kind: 'Widget',
        resource: false,
        controller: true,
        externalApiDomain: 'example.org',
      };
      await refused(
        { ...widget, externalApiPath: '@acme/widget-api', externalApiModule: '@other/api@1.0.0' },
        /is a module of @acme\/widget-api, but --external-api-module names @other\/api/,
        UsageError,
      );
      await refused(
        { ...widget, externalApiPath: '@acme/widget-api' },
        /package\.json does not depend on @acme\/widget-api/,
      );
      await refused(
        { ...widget, externalApiPath: '@acme/widget-api', externalApiModule: '@acme/widget-api@ 1' },
        /neither an npm package spec/,
        UsageError,
      );
      // Once package.json has it, the path alone is enough.
      const pkg = JSON.parse(await read('package.json')) as { dependencies: Record<string, string> };
      await writeFile(
        path.join(dir, 'package.json'),
        JSON.stringify({ ...pkg, dependencies: { ...pkg.dependencies, '@acme/widget-api': '1.0.0' } }, null, 2),
      );
      await create({ ...widget, externalApiPath: '@acme/widget-api' });
      expect(parseYaml(await read('PROJECT')).resources[0]).not.toHaveProperty('module');
    });
  });

  it('PROJECT validation rejects a bad controllers list', async () => {
    await create({ ...CAPTAIN, controllerName: 'captain' });
    const text = await read('PROJECT');
    expect(() => parseProjectFile(text.replace('- name: captain', '- name: Captain'))).toThrow(
      /controllers\[0\]\.name: invalid controller name "Captain"/,
    );
    expect(() => parseProjectFile(text.replace('- name: captain', '- name: captain\n      - name: captain'))).toThrow(
      /captain is listed twice/,
    );
  });
});
