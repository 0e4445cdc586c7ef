import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KopError, UsageError } from '../../src/base/errors.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { rewriteRelativeImports } from '../../src/edit/edit-multigroup.js';
import { switchWatchNamespace } from '../../src/edit/edit-namespaced.js';
import { runEditProject } from '../../src/edit/run-edit-project.js';
import { runDeployImage } from '../../src/plugins/deploy-image/run-deploy-image.js';
import { runInit, type InitOptions } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { preparedProject } from '../helpers/prepared-project.js';
import { listFiles } from '../helpers/files.js';

const INIT: InitOptions = {
  projectName: 'demo',
  domain: 'example.com',
  owner: 'The demo authors',
  license: 'apache2',
  kopSource: 'file:../kop',
  skipInstall: true,
};

describe('rewriteRelativeImports', () => {
  const moved = new Map([
    ['src/controllers/bar.controller.ts', 'src/controllers/foo/bar.controller.ts'],
    ['src/controllers/util.ts', 'src/controllers/foo/util.ts'],
  ]);
  it.each([
    // given: file, its new place, the text; want: the text
    [
      'src/controllers/bar.controller.ts',
      'src/controllers/foo/bar.controller.ts',
      "import { x } from '../../api/foo/v1/bar.client.js';",
      "import { x } from '../../../api/foo/v1/bar.client.js';",
    ],
    [
      'src/controllers/bar.controller.ts',
      'src/controllers/foo/bar.controller.ts',
      "import { u } from './util.js';",
      "import { u } from './util.js';",
    ],
    [
      'src/controllers/bar.controller.ts',
      'src/controllers/foo/bar.controller.ts',
      "import { h } from './helpers.js';",
      "import { h } from '../helpers.js';",
    ],
    [
      'src/controllers/bar.controller.ts',
      'src/controllers/foo/bar.controller.ts',
      'export * from "../lib/a.js";\nconst m = await import(\'../lib/b.js\');',
      'export * from "../../lib/a.js";\nconst m = await import(\'../../lib/b.js\');',
    ],
    [
      'src/main.ts',
      'src/main.ts',
      "import { BarReconciler } from './controllers/bar.controller.js';",
      "import { BarReconciler } from './controllers/foo/bar.controller.js';",
    ],
    [
      'test/controllers/bar.controller.test.ts',
      'test/controllers/foo/bar.controller.test.ts',
      "import { BarReconciler } from '../../src/controllers/bar.controller.js';\nimport { API } from 'kop/runtime';",
      "import { BarReconciler } from '../../../src/controllers/foo/bar.controller.js';\nimport { API } from 'kop/runtime';",
    ],
  ])('%s -> %s', (file, destination, text, want) => {
    expect(rewriteRelativeImports(text, file, destination, moved)).toBe(want);
  });
});

describe('switchWatchNamespace', () => {
  const scaffold = [
    '        - name: manager',
    '          env:',
    '            - name: WATCH_NAMESPACE',
    '              valueFrom:',
    '                fieldRef:',
    '                  fieldPath: metadata.namespace',
    '          ports: []',
  ].join('\n');
  const plain = ['        - name: manager', '          ports: []'].join('\n');
  it.each([
    // given: the user's file, the direction; want: the file, or undefined (no safe place)
    ['no env: to add to', plain, true, undefined],
    ['the namespaced scaffold itself', scaffold, true, scaffold],
    ['WATCH_NAMESPACE only: env: goes too', scaffold, false, plain],
    ['a user-changed WATCH_NAMESPACE', scaffold.replace('metadata.namespace', 'metadata.name'), false, undefined],
    ['no WATCH_NAMESPACE at all', plain, false, plain],
  ])('%s', (_name, given, namespaced, want) => {
    expect(switchWatchNamespace(given, scaffold, namespaced)).toBe(want);
  });
});

describe('kop edit --multigroup / --namespaced', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');
  const snapshot = async () =>
    Object.fromEntries(await Promise.all((await listFiles(dir)).map(async (f) => [f, await read(f)] as const)));
  const edit = (options: Parameters<typeof runEditProject>[0]) => runEditProject(options, testContext({ cwd: dir }));

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('demo'));
  });
  afterEach(() => cleanup());

  /** A single-group project with two kinds, both with a reconciler, one with a webhook. */
  const twoKindsProject = preparedProject('demo', async (at) => {
    await runInit(INIT, testContext({ cwd: at }));
    await runCreateApi(
      { group: 'cache', version: 'v1', kind: 'Memcached', resource: true, controller: true },
      testContext({ cwd: at }),
    );
    await runCreateApi(
      { group: 'ship', version: 'v1', kind: 'Frigate', resource: true, controller: true },
      testContext({ cwd: at }),
    );
    await runCreateWebhook(
      { group: 'ship', version: 'v1', kind: 'Frigate', defaulting: true },
      testContext({ cwd: at }),
    );
  });
  /** Makes the test's project a copy of the two-kinds project, in place of the empty folder it had. */
  const twoKinds = async () => {
    await cleanup();
    ({ dir, cleanup } = await twoKindsProject());
  };

  it('with nothing to do is a usage error', async () => {
    await runInit(INIT, testContext({ cwd: dir }));
    await expect(edit({})).rejects.toThrow(UsageError);
    await expect(edit({ force: true })).rejects.toThrow(/nothing to do/);
  });

  it('--multigroup moves the reconcilers and tests by group and rewrites what refers to them; new kinds follow the layout', async () => {
    await twoKinds();
    await edit({ multigroup: true });
    const files = await listFiles(dir);
    expect(files).toEqual(
      expect.arrayContaining([
        'src/controllers/cache/memcached.controller.ts',
        'src/controllers/ship/frigate.controller.ts',
        'test/controllers/cache/memcached.controller.test.ts',
        'test/controllers/ship/frigate.controller.test.ts',
      ]),
    );
    expect(files).not.toContain('src/controllers/memcached.controller.ts');
    expect(files).not.toContain('test/controllers/frigate.controller.test.ts');
    expect(parseProjectFile(await read('PROJECT')).multigroup).toBe(true);
    const main = await read('src/main.ts');
    expect(main).toContain(
      "import { MemcachedReconciler as CacheMemcachedReconciler } from './controllers/cache/memcached.controller.js';",
    );
    expect(main).toContain('new ShipFrigateReconciler().setupWithManager(manager);');
    expect(main).not.toContain('new MemcachedReconciler()');
    const frigate = await read('src/controllers/ship/frigate.controller.ts');
    expect(frigate).toContain("from '../../../api/ship/v1/frigate.client.js'");
    expect(frigate).toContain("manager.controller('ship-frigate')");
    expect(await read('test/controllers/ship/frigate.controller.test.ts')).toContain(
      "from '../../../src/controllers/ship/frigate.controller.js'",
    );
    expect(await read('src/webhooks/setup.ts')).toContain('new ShipFrigateV1Defaulter().setupWithManager(manager);');
    expect(await read('src/webhooks/ship/v1/frigate.defaulter.ts')).toContain('name=mship-frigate-v1.kb.io');

    // A new kind lands in the new layout.
    await runCreateApi(
      { group: 'fiz', version: 'v1', kind: 'Frigate', resource: true, controller: true },
      testContext({ cwd: dir }),
    );
    expect(await listFiles(dir)).toContain('src/controllers/fiz/frigate.controller.ts');

    // Two Frigates cannot share src/controllers/: nothing written.
    const before = await snapshot();
    await expect(edit({ multigroup: false })).rejects.toThrow(
      /--multigroup=false: two reconcilers would share src\/controllers\/frigate\.controller\.ts/,
    );
    expect(await snapshot()).toEqual(before);
  });

  it('--multigroup and back is the original project', async () => {
    await twoKinds();
    const original = await snapshot();
    await edit({ multigroup: true });
    await edit({ multigroup: false });
    expect(await snapshot()).toEqual(original);
    // The group folders the move back emptied are gone.
    expect(existsSync(path.join(dir, 'src/controllers/cache'))).toBe(false);
    expect(existsSync(path.join(dir, 'test/controllers/ship'))).toBe(false);
  });

  it('refuses, writing nothing, where the user changed what it must rewrite; --force goes ahead and warns', async () => {
    await twoKinds();
    const frigate = path.join(dir, 'src/controllers/frigate.controller.ts');
    await writeFile(
      frigate,
      (await read('src/controllers/frigate.controller.ts')).replace(
        "manager.controller('frigate')",
        "manager.controller('frigates')",
      ),
    );
    const main = path.join(dir, 'src/main.ts');
    await writeFile(
      main,
      (await read('src/main.ts')).replace(
        'new MemcachedReconciler().setupWithManager(manager);',
        'new MemcachedReconciler({ verbose: true }).setupWithManager(manager);',
      ),
    );
    const before = await snapshot();
    const run = edit({ multigroup: true });
    await expect(run).rejects.toThrow(KopError);
    await expect(run).rejects.toThrow(
      /src\/controllers\/frigate\.controller\.ts: no `\.controller\('frigate'\)`[\s\S]*src\/main\.ts: the line `new CacheMemcachedReconciler\(\)\.setupWithManager\(manager\);` replaces/,
    );
    expect(await snapshot()).toEqual(before);

    const context = testContext({ cwd: dir });
    await runEditProject({ multigroup: true, force: true }, context);
    expect(context.out.warnings.join('\n')).toContain('--force: src/controllers/frigate.controller.ts');
    expect(await read('src/controllers/ship/frigate.controller.ts')).toContain("manager.controller('frigates')");
    // The import moved all the same: the project still compiles.
    expect(await read('src/main.ts')).toContain("from './controllers/cache/memcached.controller.js'");
  });

  it("--namespaced changes exactly the files kop init --namespaced writes differently, keeping the user's edits", async () => {
    await twoKinds();
    // A user's edit far from the lines that change.
    await writeFile(
      path.join(dir, 'src/main.ts'),
      (await read('src/main.ts')).replace(
        'metricsBindAddress: flags.metricsBindAddress,',
        "metricsBindAddress: flags.metricsBindAddress || ':9090',",
      ),
    );
    await edit({ namespaced: true });

    // The namespaced scaffold, with the same APIs, for comparison.
    const other = await tempDir('demo');
    try {
      await runInit({ ...INIT, namespaced: true }, testContext({ cwd: other.dir }));
      for (const file of ['config/manager/manager.yaml', 'config/rbac/role_binding.yaml', 'README.md']) {
        expect(await read(file)).toBe(await readFile(path.join(other.dir, file), 'utf8'));
      }
      const fresh = await readFile(path.join(other.dir, 'src/main.ts'), 'utf8');
      const main = await read('src/main.ts');
      expect(main).toContain("metricsBindAddress: flags.metricsBindAddress || ':9090',");
      expect(main).toContain('new FrigateReconciler().setupWithManager(manager);');
      for (const line of fresh.split('\n').filter((l) => l.includes('watchNamespace') || l.includes('WATCH_NAMESPACE')))
        expect(main).toContain(line);
    } finally {
      await other.cleanup();
    }
    expect(parseProjectFile(await read('PROJECT')).namespaced).toBe(true);
    const role = await read('config/rbac/role.yaml');
    expect(role).toMatch(/kind: Role\nmetadata:\n  name: manager-role\n  namespace: system/);
    expect(role).not.toContain('ClusterRole');

    await edit({ namespaced: false });
    expect(await read('config/rbac/role.yaml')).toMatch(/kind: ClusterRole\nmetadata:\n  name: manager-role\nrules:/);
    expect(await read('src/main.ts')).not.toContain('WATCH_NAMESPACE');
    expect(await read('config/manager/manager.yaml')).not.toContain('WATCH_NAMESPACE');
  });

  it("--namespaced refuses when the user changed the lines it changes (nothing written); --force takes kop's file and re-wires main.ts", async () => {
    await twoKinds();
    // Right where --namespaced adds the namespace option.
    await writeFile(
      path.join(dir, 'src/main.ts'),
      (await read('src/main.ts'))
        .replace('    leaderElectionId:', '    // my note\n    leaderElectionId:')
        .replace('    logger,\n  });', '    logger: logger,\n  });'),
    );
    const before = await snapshot();
    await expect(edit({ namespaced: true })).rejects.toThrow(
      /src\/main\.ts: your edits overlap the lines --namespaced=true changes/,
    );
    expect(await snapshot()).toEqual(before);

    await edit({ namespaced: true, force: true });
    const main = await read('src/main.ts');
    expect(main).toContain('namespace: watchNamespace,');
    expect(main).toContain("import { MemcachedReconciler } from './controllers/memcached.controller.js';");
    expect(main).toContain('new FrigateReconciler().setupWithManager(manager);');
    expect(main).toContain('setupWebhooks(manager);');
  });

  it("--namespaced on a namespaced project (Kubebuilder's `edit --namespaced --force` after `init --namespaced`) changes nothing but says so", async () => {
    await runInit({ ...INIT, namespaced: true }, testContext({ cwd: dir }));
    const before = await snapshot();
    const context = testContext({ cwd: dir });
    await runEditProject({ namespaced: true, force: true }, context);
    expect(context.out.lines.join('\n')).toContain('already namespaced');
    expect(await snapshot()).toEqual(before);
  });

  it("--namespaced and back with a deploy-image kind: WATCH_NAMESPACE joins and leaves the manager's env next to the image variable", async () => {
    await runInit(INIT, testContext({ cwd: dir }));
    await runDeployImage(
      { group: 'example.com', version: 'v1alpha1', kind: 'Memcached', image: 'memcached:1.6' },
      testContext({ cwd: dir }),
    );
    const original = await read('config/manager/manager.yaml');
    await edit({ namespaced: true });
    const manager = await read('config/manager/manager.yaml');
    expect(manager).toMatch(
      / {10}env:\n {12}- name: WATCH_NAMESPACE\n {14}valueFrom:\n {16}fieldRef:\n {18}apiVersion: v1\n {18}fieldPath: metadata.namespace\n(?: {12}#.*\n)* {12}- name: MEMORY_LIMIT\n(?: {14,}.*\n)+ {12}- name: MEMCACHED_IMAGE\n/,
    );
    await edit({ namespaced: false });
    expect(await read('config/manager/manager.yaml')).toBe(original);
  });

  it('a bad plugin name next to --multigroup writes nothing', async () => {
    await twoKinds();
    const before = await snapshot();
    await expect(edit({ multigroup: true, plugins: ['nope'] })).rejects.toThrow(/unknown plugin "nope"/);
    expect(await snapshot()).toEqual(before);
  });
});
