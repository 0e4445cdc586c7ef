import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KopError, UsageError } from '../../src/base/errors.js';
import { runCreateApi, type CreateApiOptions } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { checkInitPlugins } from '../../src/init/init-plugins.js';
import { runInit, type InitOptions } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import {
  controllerNamesOf,
  controllersOf,
  CREATE_API_PATHS,
  placeControllerFile,
} from '../../src/project/resource-layout.js';
import { admissionWebhookName, webhookNamePrefix } from '../../src/project/webhook-layout.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { listFiles } from '../helpers/files.js';

const INIT: InitOptions = {
  projectName: 'demo',
  domain: 'testproject.org',
  owner: 'The demo authors',
  license: 'apache2',
  kopSource: 'file:../kop',
  skipInstall: true,
};
const bar = (group: string): CreateApiOptions => ({
  group,
  version: 'v1',
  kind: 'Bar',
  resource: true,
  controller: true,
});

describe('the reconciler layout', () => {
  it.each([
    // given: kind, --controller-name, group folder; want: name, file, test file, class, name in main.ts
    [
      'Bar',
      undefined,
      undefined,
      'bar',
      'src/controllers/bar.controller.ts',
      'test/controllers/bar.controller.test.ts',
      'BarReconciler',
      'BarReconciler',
    ],
    [
      'Bar',
      undefined,
      'foo',
      'foo-bar',
      'src/controllers/foo/bar.controller.ts',
      'test/controllers/foo/bar.controller.test.ts',
      'BarReconciler',
      'FooBarReconciler',
    ],
    [
      'Bar',
      'bar',
      'sea-creatures',
      'sea-creatures-bar',
      'src/controllers/sea-creatures/bar.controller.ts',
      'test/controllers/sea-creatures/bar.controller.test.ts',
      'BarReconciler',
      'SeaCreaturesBarReconciler',
    ],
    [
      'Captain',
      'captain-backup',
      'crew',
      'captain-backup',
      'src/controllers/crew/captain-backup.controller.ts',
      'test/controllers/crew/captain-backup.controller.test.ts',
      'CaptainBackupReconciler',
      'CrewCaptainBackupReconciler',
    ],
    [
      'Lease',
      undefined,
      'coordination.k8s.io',
      'coordination.k8s.io-lease',
      'src/controllers/coordination.k8s.io/lease.controller.ts',
      'test/controllers/coordination.k8s.io/lease.controller.test.ts',
      'LeaseReconciler',
      'CoordinationK8sIoLeaseReconciler',
    ],
  ])(
    '%s --controller-name %s in group folder %s',
    (kind, controllerName, group, name, file, testFile, className, localName) => {
      const controller = controllerNamesOf(kind, controllerName, group);
      expect(controller.name).toBe(name);
      expect(CREATE_API_PATHS.namedControllerFile(controller)).toBe(file);
      expect(CREATE_API_PATHS.namedControllerTestFile(controller)).toBe(testFile);
      expect(controller.className).toBe(className);
      expect(controller.localName).toBe(localName);
      expect(controller.toRoot).toBe(group === undefined ? '../../' : '../../../');
      expect(placeControllerFile(`src/controllers/${controller.stem}.controller.ts`, controller)).toBe(file);
      expect(placeControllerFile('api/foo/v1/bar.types.ts', controller)).toBe('api/foo/v1/bar.types.ts');
    },
  );

  it('places the reconcilers PROJECT records by the project layout; the empty group has no folder', () => {
    const resource = { group: 'foo', kind: 'Bar', controller: true, controllers: [{ name: 'bar-backup' }] };
    expect(controllersOf(resource).map((c) => CREATE_API_PATHS.namedControllerFile(c))).toEqual([
      'src/controllers/bar.controller.ts',
      'src/controllers/bar-backup.controller.ts',
    ]);
    expect(controllersOf(resource, { multigroup: true }).map((c) => CREATE_API_PATHS.namedControllerFile(c))).toEqual([
      'src/controllers/foo/bar.controller.ts',
      'src/controllers/foo/bar-backup.controller.ts',
    ]);
    expect(controllersOf({ ...resource, group: '' }, { multigroup: true }).map((c) => c.dir)).toEqual(['', '']);
  });

  it('qualifies webhook class and webhook names by group in multigroup projects, and for a same-named kind of a later group otherwise', () => {
    const foo = { group: 'foo', version: 'v1', kind: 'Bar', plural: 'bars', domain: 'testproject.org' };
    const fiz = { ...foo, group: 'fiz' };
    expect(webhookNamePrefix(foo, { multigroup: true, resources: [foo] })).toBe('Foo');
    expect(webhookNamePrefix(foo, { resources: [foo] })).toBe('');
    expect(webhookNamePrefix(fiz, { resources: [foo, fiz] })).toBe('Fiz');
    expect(admissionWebhookName('mutate', { kind: 'Bar', version: 'v1' })).toBe('mbar-v1.kb.io');
    expect(admissionWebhookName('validate', { kind: 'Bar', version: 'v1' }, 'sea-creatures')).toBe(
      'vsea-creatures-bar-v1.kb.io',
    );
  });
});

describe('kop init --plugins', () => {
  it.each([['go/v4'], ['go.kubebuilder.io/v4'], ['kop.dev/typescript/v1'], ['go/v4,go.kubebuilder.io/v4']])(
    "accepts %s as kop's layout, saying so",
    (name) => {
      expect(checkInitPlugins([name])).toMatch(
        /^--plugins .*: kop scaffolds its TypeScript layout kop\.dev\/typescript\/v1 .*no Go code/,
      );
    },
  );
  it.each([['go/v3'], ['helm.kubebuilder.io/v2-alpha'], ['deploy-image/v1-alpha'], ['']])(
    'refuses %j, listing what init accepts',
    (name) => {
      expect(() => checkInitPlugins([name])).toThrow(UsageError);
      try {
        checkInitPlugins([name]);
      } catch (error) {
        expect((error as UsageError).hint).toContain('go/v4, go.kubebuilder.io/v4, kop.dev/typescript/v1');
      }
    },
  );
});

describe('a multigroup project', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('demo'));
  });
  afterEach(() => cleanup());

  it('kop init --plugins go/v4 --multigroup records multigroup: true and says which layout it writes', async () => {
    const context = testContext({ cwd: dir });
    await runInit({ ...INIT, plugins: ['go/v4'], multigroup: true }, context);
    expect(context.out.lines[0]).toContain('kop scaffolds its TypeScript layout');
    expect(parseProjectFile(await read('PROJECT')).multigroup).toBe(true);
    expect(await read('PROJECT')).toContain('\nmultigroup: true\n');
  });

  it('kop init with an unknown plugin writes nothing', async () => {
    await expect(runInit({ ...INIT, plugins: ['go/v3'] }, testContext({ cwd: dir }))).rejects.toThrow(
      /--plugins: unknown plugin "go\/v3" for kop init/,
    );
    expect(await listFiles(dir)).toEqual([]);
  });

  it('takes Bar in foo and in fiz, each with its reconciler, test and webhooks under its group, under names that do not clash', async () => {
    await runInit({ ...INIT, multigroup: true }, testContext({ cwd: dir }));
    await runCreateApi(bar('foo'), testContext({ cwd: dir }));
    await runCreateApi(bar('fiz'), testContext({ cwd: dir }));
    for (const group of ['foo', 'fiz'])
      await runCreateWebhook(
        { group, version: 'v1', kind: 'Bar', defaulting: true, programmaticValidation: true },
        testContext({ cwd: dir }),
      );

    const files = await listFiles(dir);
    for (const group of ['foo', 'fiz']) {
      expect(files).toContain(`src/controllers/${group}/bar.controller.ts`);
      expect(files).toContain(`test/controllers/${group}/bar.controller.test.ts`);
      const controller = await read(`src/controllers/${group}/bar.controller.ts`);
      expect(controller).toContain(`from '../../../api/${group}/v1/bar.client.js'`);
      expect(controller).toContain(`manager.controller('${group}-bar')`);
      const test = await read(`test/controllers/${group}/bar.controller.test.ts`);
      expect(test).toContain(`from '../../../src/controllers/${group}/bar.controller.js'`);
      expect(test).toContain(`from '../../../api/${group}/v1/bar.client.js'`);
      expect(test).toContain(`from '../../fixtures/${group}/v1/bar.js'`);
      expect(files).toContain(`test/fixtures/${group}/v1/bar.ts`);
      expect(await read(`src/webhooks/${group}/v1/bar.defaulter.ts`)).toContain(`name=m${group}-bar-v1.kb.io`);
    }
    expect(files.filter((f) => /^src\/controllers\/[^/]+\.ts$/.test(f))).toEqual([]);
    const main = await read('src/main.ts');
    expect(main).toContain("import { BarReconciler as FooBarReconciler } from './controllers/foo/bar.controller.js';");
    expect(main).toContain("import { BarReconciler as FizBarReconciler } from './controllers/fiz/bar.controller.js';");
    expect(main).toContain('new FooBarReconciler().setupWithManager(manager);');
    expect(main).toContain('new FizBarReconciler().setupWithManager(manager);');
    const setup = await read('src/webhooks/setup.ts');
    expect(setup).toContain("import { BarDefaulter as FizBarV1Defaulter } from './fiz/v1/bar.defaulter.js';");
    expect(setup).toContain('new FooBarV1Validator().setupWithManager(manager);');
  });

  it('refuses a second reconciler of the same kind in the same group (nothing written), but not in another group', async () => {
    await runInit({ ...INIT, multigroup: true }, testContext({ cwd: dir }));
    await runCreateApi(bar('foo'), testContext({ cwd: dir }));
    const before = await listFiles(dir);
    await expect(
      runCreateApi({ ...bar('foo'), version: 'v2', resource: false }, testContext({ cwd: dir })),
    ).rejects.toThrow(KopError);
    expect(await listFiles(dir)).toEqual(before);
  });

  it('records a named reconciler of a multigroup kind by the name given, as Kubebuilder does', async () => {
    await runInit({ ...INIT, multigroup: true }, testContext({ cwd: dir }));
    await runCreateApi(
      { group: 'crew', version: 'v1', kind: 'Captain', resource: true, controller: true, controllerName: 'captain' },
      testContext({ cwd: dir }),
    );
    await runCreateApi(
      {
        group: 'crew',
        version: 'v1',
        kind: 'Captain',
        resource: false,
        controller: true,
        controllerName: 'captain-backup',
      },
      testContext({ cwd: dir }),
    );
    expect(parseProjectFile(await read('PROJECT')).resources[0]!.controllers).toEqual([
      { name: 'captain' },
      { name: 'captain-backup' },
    ]);
    expect(await read('src/controllers/crew/captain.controller.ts')).toContain("manager.controller('crew-captain')");
    expect(await read('src/controllers/crew/captain-backup.controller.ts')).toContain(
      "manager.controller('captain-backup')",
    );
  });

  it("a single-group project still refuses the second group's unnamed Bar reconciler, pointing at --multigroup", async () => {
    await runInit(INIT, testContext({ cwd: dir }));
    await runCreateApi(bar('foo'), testContext({ cwd: dir }));
    await expect(runCreateApi(bar('fiz'), testContext({ cwd: dir }))).rejects.toThrow(
      /already uses src\/controllers\/bar\.controller\.ts/,
    );
  });
});
