import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { UsageError } from '../../src/base/errors.js';
import { runInit } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { RESERVED_KIND_NAMES } from '../../src/create-api/run-create-api.js';
import { deployImageOptions, RESERVED_BY_TEMPLATES } from '../../src/plugins/deploy-image/run-deploy-image.js';
import { runCreateApiWithPlugins, type CreateApiWithPluginsOptions } from '../../src/plugins/run-create-api-plugins.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { listFiles } from '../helpers/files.js';

/** Kubebuilder's testdata command, as kop takes it. */
const MEMCACHED: CreateApiWithPluginsOptions = {
  group: 'example.com',
  version: 'v1alpha1',
  kind: 'Memcached',
  image: 'memcached:1.6.26-alpine3.19',
  imageContainerCommand: 'memcached,--memory-limit=64,-o,modern,-v',
  imageContainerPort: '11211',
  runAsUser: '1001',
  plugins: ['deploy-image/v1-alpha'],
};
const BUSYBOX: CreateApiWithPluginsOptions = {
  group: 'example.com',
  version: 'v1alpha1',
  kind: 'Busybox',
  image: 'busybox:1.36.1',
  plugins: ['deploy-image.go.kubebuilder.io/v1-alpha'],
};

async function snapshot(dir: string): Promise<Record<string, string>> {
  const files = await listFiles(dir);
  return Object.fromEntries(
    await Promise.all(files.map(async (file) => [file, await readFile(path.join(dir, file), 'utf8')] as const)),
  );
}

describe('kop create api --plugins deploy-image/v1-alpha', () => {
  for (const namespaced of [false, true]) {
    describe(namespaced ? 'in a namespaced project' : 'in a cluster-wide project', () => {
      let dir: string;
      let cleanup: () => Promise<void>;
      const read = (file: string) => readFile(path.join(dir, file), 'utf8');
      const run = (options: CreateApiWithPluginsOptions) => runCreateApiWithPlugins(options, testContext({ cwd: dir }));

      beforeEach(async () => {
        ({ dir, cleanup } = await tempDir('demo'));
        await runInit(
          {
            projectName: 'demo',
            domain: 'testproject.org',
            owner: 'The demo authors',
            license: 'apache2',
            kopSource: 'file:../kop',
            skipInstall: true,
            ...(namespaced ? { namespaced: true } : {}),
          },
          testContext({ cwd: dir }),
        );
      });
      afterEach(() => cleanup());

      it('scaffolds the kind, its controller and test, sets the image for the manager, and records the plugin', async () => {
        const result = await run(MEMCACHED);
        expect(result.changes.filter((c) => c.action !== 'unchanged').map((c) => `${c.action} ${c.path}`)).toEqual([
          'update PROJECT',
          'create api/example.com/v1alpha1/groupversion.ts',
          'create api/example.com/v1alpha1/memcached.types.ts',
          'update config/manager/manager.yaml',
          'update config/rbac/kustomization.yaml',
          'create config/rbac/memcached_admin_role.yaml',
          'create config/rbac/memcached_editor_role.yaml',
          'create config/rbac/memcached_viewer_role.yaml',
          'create config/samples/example.com_v1alpha1_memcached.yaml',
          'update config/samples/kustomization.yaml',
          'create src/controllers/memcached.controller.ts',
          'update src/main.ts',
          'create test/controllers/memcached.controller.test.ts',
          'create test/fixtures/example.com/v1alpha1/memcached.ts',
        ]);
        await run(BUSYBOX);

        const project = parseProjectFile(await read('PROJECT'));
        expect(project.plugins).toEqual({
          'deploy-image.go.kubebuilder.io/v1-alpha': {
            resources: [
              {
                domain: 'testproject.org',
                group: 'example.com',
                version: 'v1alpha1',
                kind: 'Memcached',
                options: {
                  image: 'memcached:1.6.26-alpine3.19',
                  containerCommand: 'memcached,--memory-limit=64,-o,modern,-v',
                  containerPort: '11211',
                  runAsUser: '1001',
                },
              },
              {
                domain: 'testproject.org',
                group: 'example.com',
                version: 'v1alpha1',
                kind: 'Busybox',
                options: { image: 'busybox:1.36.1' },
              },
            ],
          },
        });
        expect(project.resources.map((r) => [r.kind, r.controller, r.api?.namespaced])).toEqual([
          ['Busybox', true, true],
          ['Memcached', true, true],
        ]);

        const types = await read('api/example.com/v1alpha1/memcached.types.ts');
        expect(types).toContain('size?: int32;');
        expect(types).toContain('+kubebuilder:validation:Minimum=1');
        expect(types).toContain('+kubebuilder:validation:Maximum=3');
        expect(types).toContain('+kubebuilder:default=11211');
        expect(types).toContain('containerPort?: int32;');
        expect(await read('api/example.com/v1alpha1/busybox.types.ts')).not.toContain('containerPort');

        const controller = await read('src/controllers/memcached.controller.ts');
        expect(controller).toContain("export const MEMCACHED_IMAGE = 'MEMCACHED_IMAGE';");
        expect(controller).toContain("export const DEFAULT_MEMCACHED_IMAGE = 'memcached:1.6.26-alpine3.19';");
        expect(controller).toContain("command: ['memcached', '--memory-limit=64', '-o', 'modern', '-v'],");
        expect(controller).toContain('runAsUser: 1001,');
        expect(controller).toContain(
          '+kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete',
        );
        expect(controller).toContain('+kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch');
        expect(controller).toContain('+kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch');
        const busybox = await read('src/controllers/busybox.controller.ts');
        expect(busybox).not.toContain('command:');
        expect(busybox).not.toContain('ports:');
        expect(busybox).not.toContain('runAsUser');

        const sample = parseYaml(await read('config/samples/example.com_v1alpha1_memcached.yaml')) as { spec: unknown };
        expect(sample.spec).toEqual({ size: 1, containerPort: 11211 });

        // The images reach the manager through its Deployment, each once, at the marker.
        const manager = await read('config/manager/manager.yaml');
        expect(manager).toContain('# +kop:scaffold:manager-env');
        const deployment = parseAllDocuments(manager)
          .map(
            (doc) =>
              doc.toJS() as {
                kind: string;
                spec?: { template: { spec: { containers: { name: string; env?: unknown[] }[] } } };
              },
          )
          .find((o) => o.kind === 'Deployment')!;
        const env = deployment.spec!.template.spec.containers.find((c) => c.name === 'manager')!.env;
        expect(env).toEqual([
          ...(namespaced
            ? [
                {
                  name: 'WATCH_NAMESPACE',
                  valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } },
                },
              ]
            : []),
          { name: 'MEMORY_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1' } } },
          { name: 'MEMCACHED_IMAGE', value: 'memcached:1.6.26-alpine3.19' },
          { name: 'BUSYBOX_IMAGE', value: 'busybox:1.36.1' },
        ]);

        // --force scaffolds again with new options; PROJECT keeps one entry per kind, the env its first value (yours to change).
        await run({ ...BUSYBOX, image: 'busybox:1.37.0', force: true });
        const again = parseProjectFile(await read('PROJECT'));
        expect(
          again.plugins!['deploy-image.go.kubebuilder.io/v1-alpha']!.resources.map(
            (r) => `${r.kind} ${r.options.image}`,
          ),
        ).toEqual(['Memcached memcached:1.6.26-alpine3.19', 'Busybox busybox:1.37.0']);
        expect((await read('config/manager/manager.yaml')).match(/BUSYBOX_IMAGE/g)).toHaveLength(1);
      });

      it('names the image variable after a kind answered at the prompt', async () => {
        await runCreateApiWithPlugins(
          { ...BUSYBOX, kind: undefined },
          testContext({ cwd: dir, answers: { '--kind': 'Sleeper', '--resource': true, '--controller': true } }),
        );
        expect(await read('config/manager/manager.yaml')).toContain('- name: SLEEPER_IMAGE\n');
        expect(await read('src/controllers/sleeper.controller.ts')).toContain(
          "export const SLEEPER_IMAGE = 'SLEEPER_IMAGE';",
        );
      });

      it('refuses bad input and writes nothing', async () => {
        const before = await snapshot(dir);
        const cases: [CreateApiWithPluginsOptions, string][] = [
          [{ ...MEMCACHED, plugins: undefined }, '--image belongs to the deploy-image plugin'],
          [{ ...MEMCACHED, plugins: ['deploy-image/v2'] }, '--plugins: unknown plugin "deploy-image/v2"'],
          [{ ...MEMCACHED, plugins: ['grafana/v1-alpha'] }, 'is a plugin of `kop edit`'],
          [{ ...MEMCACHED, image: undefined }, '--image: the deploy-image plugin needs the image'],
          [{ ...MEMCACHED, image: 'Memcached:latest' }, '--image: '],
          [{ ...MEMCACHED, imageContainerPort: '70000' }, '--image-container-port: "70000" is not a port number'],
          [{ ...MEMCACHED, runAsUser: '0' }, '--run-as-user: 0 is root'],
          [{ ...MEMCACHED, runAsUser: 'root' }, '--run-as-user: "root" is not a user id'],
          [{ ...MEMCACHED, imageContainerCommand: 'memcached,,-v' }, 'has an empty part'],
          [{ ...MEMCACHED, controller: false }, 'scaffolds both the API types and the controller'],
          [{ ...MEMCACHED, namespaced: false }, 'needs a namespaced kind'],
          [{ ...MEMCACHED, kind: 'Deployment' }, 'the deploy-image controller already uses the name Deployment'],
        ];
        for (const [options, message] of cases) {
          await expect(run(options), message).rejects.toThrow(message);
          await expect(run(options)).rejects.toBeInstanceOf(UsageError);
        }
        expect(await snapshot(dir)).toEqual(before);
      });
    });
  }

  it('records the options as Kubebuilder does: strings, only the flags given', () => {
    expect(deployImageOptions({ image: 'busybox:1.36.1' })).toEqual({ image: 'busybox:1.36.1' });
    expect(deployImageOptions({ image: 'a/b:c', imageContainerPort: '080', runAsUser: '1001' })).toEqual({
      image: 'a/b:c',
      containerPort: '80',
      runAsUser: '1001',
    });
  });
});

describe('deploy-image templates', () => {
  it('every upper-case name they import or use as a type is one a kind cannot take', async () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../templates/plugins/deploy-image');
    const used = new Set<string>();
    for (const file of await listFiles(root)) {
      if (!file.endsWith('.ts.hbs')) continue;
      const text = await readFile(path.join(root, file), 'utf8');
      for (const [, list] of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}/g)) {
        for (const entry of list!.split(',')) {
          const name = entry
            .replace(/^\s*type\s+/, '')
            .split(/\s+as\s+/)
            .pop()!
            .trim();
          if (/^[A-Z][A-Za-z0-9]*$/.test(name)) used.add(name);
        }
      }
    }
    expect(used.size).toBeGreaterThan(5);
    const reserved = new Set([...RESERVED_KIND_NAMES, ...RESERVED_BY_TEMPLATES]);
    expect([...used].filter((name) => !reserved.has(name) && !name.startsWith('{{'))).toEqual([]);
  });
});
