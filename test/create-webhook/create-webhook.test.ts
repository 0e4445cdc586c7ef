import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook, type CreateWebhookOptions } from '../../src/create-webhook/run-create-webhook.js';
import { generators } from '../../src/commands/generate.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runImportCrd } from '../../src/import/run-import-crd.js';
import { runInit } from '../../src/init/run-init.js';
import { formatProjectFile, parseProjectFile } from '../../src/project/project-file.js';
import { testContext, type TestContextOptions } from '../helpers/fake-context.js';
import { listFiles } from '../helpers/files.js';
import { preparedProject } from '../helpers/prepared-project.js';

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of await listFiles(dir)) out[file] = await readFile(path.join(dir, file), 'utf8');
  return out;
}

const V1 = { group: 'cache', version: 'v1', kind: 'RedisCluster' } as const;

describe('kop create webhook', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');
  const project = async () => parseProjectFile(await read('PROJECT'));
  const create = (options: CreateWebhookOptions, extra: Partial<TestContextOptions> = {}) => {
    const context = testContext({ cwd: dir, ...extra });
    return { context, run: runCreateWebhook(options, context) };
  };
  const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

  const demo = preparedProject('demo', async (at) => {
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
    await runCreateApi({ ...V1 }, testContext({ cwd: at }));
  });
  beforeEach(async () => {
    ({ dir, cleanup } = await demo());
  });
  afterEach(() => cleanup());

  it('adds a defaulter now and a validator later, each once, with their wiring', async () => {
    await create({ ...V1, defaulting: true }).run;
    expect((await project()).resources[0]!.webhooks).toEqual({ defaulting: true, webhookVersion: 'v1' });
    const files = await listFiles(dir);
    expect(files).toContain('src/webhooks/cache/v1/rediscluster.defaulter.ts');
    expect(files).toContain('test/webhooks/cache/v1/rediscluster.defaulter.test.ts');
    expect(files).not.toContain('src/webhooks/cache/v1/rediscluster.validator.ts');
    expect(await read('src/webhooks/cache/v1/rediscluster.defaulter.ts')).toContain(
      '+kubebuilder:webhook:path=/mutate-cache-example-com-v1-rediscluster,mutating=true,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=redisclusters,verbs=create;update,versions=v1,name=mrediscluster-v1.kb.io,admissionReviewVersions=v1',
    );

    await writeFile(path.join(dir, 'src/webhooks/setup.ts'), (await read('src/webhooks/setup.ts')) + '// my edit\n');
    await create({ ...V1, programmaticValidation: true }).run;
    expect((await project()).resources[0]!.webhooks).toEqual({
      defaulting: true,
      validation: true,
      webhookVersion: 'v1',
    });
    const setup = await read('src/webhooks/setup.ts');
    expect(setup).toContain('// my edit');
    expect(count(setup, 'new RedisClusterV1Defaulter().setupWithManager(manager);')).toBe(1);
    expect(count(setup, 'new RedisClusterV1Validator().setupWithManager(manager);')).toBe(1);
    const main = await read('src/main.ts');
    expect(count(main, 'setupWebhooks(manager);')).toBe(1);
    const kustomization = await read('config/default/kustomization.yaml');
    expect(count(kustomization, '- ../webhook')).toBe(1);
    expect(count(kustomization, '- path: manager_webhook_patch.yaml')).toBe(1);
  });

  it("registers the webhooks in main.ts behind ENABLE_WEBHOOKS=false (Kubebuilder's switch), and calls them once in an older main.ts", async () => {
    await create({ ...V1, defaulting: true }).run;
    const main = await read('src/main.ts');
    expect(main).toContain("    if (process.env.ENABLE_WEBHOOKS !== 'false') setupWebhooks(manager);\n");
    expect(main).toContain('// ENABLE_WEBHOOKS=false runs the manager without its webhooks');
    // A main.ts from before the switch keeps its one unconditional call.
    await writeFile(
      path.join(dir, 'src/main.ts'),
      main.replace(
        /^ *\/\/ ENABLE_WEBHOOKS=false[^\n]*\n *\/\/[^\n]*\n *if \(process[^\n]*\n/m,
        '    setupWebhooks(manager);\n',
      ),
    );
    await create({ ...V1, programmaticValidation: true }).run;
    const older = await read('src/main.ts');
    expect(count(older, 'setupWebhooks(manager);')).toBe(1);
    expect(older).not.toContain('process.env.ENABLE_WEBHOOKS');
  });

  it('fits a project made before init scaffolded config/network-policy and config/certmanager', async () => {
    // Such a project has neither folder; its first webhook writes them, a later one finds them without markers.
    await rm(path.join(dir, 'config/network-policy'), { recursive: true });
    await rm(path.join(dir, 'config/certmanager'), { recursive: true });
    await create({ ...V1, defaulting: true }).run;
    const policies = await read('config/network-policy/kustomization.yaml');
    expect(count(policies, '- allow-webhook-traffic.yaml')).toBe(1);
    expect(count(await read('config/certmanager/kustomization.yaml'), '- certificate-webhook.yaml')).toBe(1);
    for (const file of ['config/network-policy/kustomization.yaml', 'config/certmanager/kustomization.yaml']) {
      await writeFile(path.join(dir, file), (await read(file)).replace(/^\s*# \+kop:scaffold:.*\n/m, ''));
    }
    await create({ ...V1, programmaticValidation: true }).run;
    expect(count(await read('config/network-policy/kustomization.yaml'), '- allow-webhook-traffic.yaml')).toBe(1);
    expect(count(await read('config/certmanager/kustomization.yaml'), '- certificate-webhook.yaml')).toBe(1);
  });

  it('refuses a webhook the kind has, naming --force, and --force scaffolds it again', async () => {
    await create({ ...V1, defaulting: true }).run;
    await writeFile(path.join(dir, 'src/webhooks/cache/v1/rediscluster.defaulter.ts'), 'edited\n');
    const before = await snapshot(dir);
    await expect(create({ ...V1, defaulting: true, programmaticValidation: true }).run).rejects.toThrow(
      /already has a defaulting webhook \(src\/webhooks\/cache\/v1\/rediscluster\.defaulter\.ts\); kop create webhook wrote nothing/,
    );
    expect(await snapshot(dir)).toEqual(before);
    await create({ ...V1, defaulting: true, force: true }).run;
    expect(await read('src/webhooks/cache/v1/rediscluster.defaulter.ts')).toContain('class RedisClusterDefaulter');
    expect(count(await read('src/webhooks/setup.ts'), 'RedisClusterV1Defaulter().setupWithManager')).toBe(1);
  });

  it('converts through the hub: marks it the storage version, one file and test per spoke, the patch from generate', async () => {
    await runCreateApi({ ...V1, version: 'v1alpha1', controller: false }, testContext({ cwd: dir }));
    await runCreateApi({ ...V1, version: 'v2', controller: false }, testContext({ cwd: dir }));
    await create({ ...V1, conversion: true, spoke: ['v1alpha1'] }).run;
    expect(await read('api/cache/v1/rediscluster.types.ts')).toMatch(
      / \* \+kubebuilder:object:root=true\n \* \+kubebuilder:storageversion\n \* \+kubebuilder:subresource:status/,
    );
    expect((await project()).resources.find((r) => r.version === 'v1')!.webhooks).toEqual({
      conversion: true,
      spoke: ['v1alpha1'],
      webhookVersion: 'v1',
    });
    // A second spoke later adds only its own files and line.
    await create({ ...V1, conversion: true, spoke: ['v2'] }).run;
    expect((await project()).resources.find((r) => r.version === 'v1')!.webhooks?.spoke).toEqual(['v1alpha1', 'v2']);
    expect(count(await read('api/cache/v1/rediscluster.types.ts'), '+kubebuilder:storageversion')).toBe(1);
    const setup = await read('src/webhooks/setup.ts');
    expect(setup).toContain('setupRedisClusterV1alpha1Conversion(manager);');
    expect(setup).toContain('setupRedisClusterV2Conversion(manager);');
    expect(await listFiles(dir)).toEqual(
      expect.arrayContaining([
        'src/webhooks/cache/v2/rediscluster.conversion.ts',
        'test/webhooks/cache/v2/rediscluster.conversion.test.ts',
      ]),
    );

    await runGenerate({ check: false, generators }, testContext({ cwd: dir }));
    expect(await read('config/crd/patches/webhook_in_redisclusters.yaml')).toContain(
      'name: redisclusters.cache.example.com',
    );
    expect(await read('config/crd/kustomization.yaml')).toContain('- path: patches/webhook_in_redisclusters.yaml');
    expect(await read('config/default/webhook_replacements.yaml')).toContain('name: redisclusters.cache.example.com');
  });

  it('refuses a hub that is not the storage version', async () => {
    await runCreateApi({ ...V1, version: 'v2', controller: false }, testContext({ cwd: dir }));
    const v2 = 'api/cache/v2/rediscluster.types.ts';
    await writeFile(
      path.join(dir, v2),
      (await read(v2)).replace(
        ' * +kubebuilder:object:root=true\n * +kubebuilder:subresource:status',
        ' * +kubebuilder:object:root=true\n * +kubebuilder:storageversion\n * +kubebuilder:subresource:status',
      ),
    );
    const before = await snapshot(dir);
    await expect(create({ ...V1, conversion: true, spoke: ['v2'] }).run).rejects.toThrow(
      /v2 is marked \+kubebuilder:storageversion \(api\/cache\/v2\/rediscluster\.types\.ts:\d+\), but the hub of a conversion is the storage version/,
    );
    expect(await snapshot(dir)).toEqual(before);
  });

  // One placement rule in every command (issue 24, snag 1): a type's markers count in its doc comment
  // and in the comment group right above it, package markers (+versionName) included, for
  // create webhook as for generate.
  const ROOT_DOC = '/**\n * RedisCluster is the root type of the redisclusters.cache.example.com API.\n';
  const KUBEBUILDER_WAY = (storage: boolean) =>
    '// +kubebuilder:object:root=true\n' +
    (storage ? '// +kubebuilder:storageversion\n' : '') +
    '// +kubebuilder:subresource:status\n// +versionName=v1\n\n' +
    ROOT_DOC +
    ' */\n';
  const DOC_WAY = (storage: boolean) =>
    ROOT_DOC +
    ' * +kubebuilder:object:root=true\n' +
    (storage ? ' * +kubebuilder:storageversion\n' : '') +
    ' * +kubebuilder:subresource:status\n * +versionName=v1\n */\n';
  for (const [layout, comment] of [
    ['a // group above the doc comment (the Kubebuilder way)', KUBEBUILDER_WAY],
    ['the doc comment', DOC_WAY],
  ] as const) {
    for (const storage of [true, false]) {
      it(`converts a hub whose markers are in ${layout}, ${storage ? 'marked' : 'not yet marked'} as the storage version, and generate agrees`, async () => {
        await runCreateApi({ ...V1, version: 'v2', controller: false }, testContext({ cwd: dir }));
        const v1 = 'api/cache/v1/rediscluster.types.ts';
        const original = await read(v1);
        const rootComment = /\/\*\*\n \* RedisCluster is the root type[^\n]*\n(?: \* \+[^\n]*\n)+ \*\/\n/;
        expect(original).toMatch(rootComment);
        await writeFile(path.join(dir, v1), original.replace(rootComment, comment(storage)));
        await create({ ...V1, conversion: true, spoke: ['v2'] }).run;
        // Marked once, where the root marker is, the way its line is written.
        expect(await read(v1)).toBe(original.replace(rootComment, comment(true)));
        await runGenerate({ check: false, generators }, testContext({ cwd: dir }));
        const crd = yaml.load(await read('config/crd/bases/cache.example.com_redisclusters.yaml')) as {
          spec: { versions: { name: string; storage: boolean; subresources?: unknown }[] };
        };
        expect(crd.spec.versions.map((v) => [v.name, v.storage, v.subresources])).toEqual([
          ['v1', true, { status: {} }],
          ['v2', false, { status: {} }],
        ]);
      });
    }
  }

  it('finds another version marked as the storage version in its // group too', async () => {
    await runCreateApi({ ...V1, version: 'v2', controller: false }, testContext({ cwd: dir }));
    const v2 = 'api/cache/v2/rediscluster.types.ts';
    await writeFile(
      path.join(dir, v2),
      (await read(v2)).replace(/\/\*\*\n \* RedisCluster is the root type/, '// +kubebuilder:storageversion\n\n$&'),
    );
    const before = await snapshot(dir);
    await expect(create({ ...V1, conversion: true, spoke: ['v2'] }).run).rejects.toThrow(
      /v2 is marked \+kubebuilder:storageversion \(api\/cache\/v2\/rediscluster\.types\.ts:\d+\), but the hub/,
    );
    expect(await snapshot(dir)).toEqual(before);
  });

  it('generate refuses a conversion whose kind lost its second version', async () => {
    await runCreateApi({ ...V1, version: 'v2', controller: false }, testContext({ cwd: dir }));
    await create({ ...V1, conversion: true, spoke: ['v2'] }).run;
    const recorded = await read('PROJECT');
    // The user deletes v2's types but PROJECT still records the conversion.
    const { rm } = await import('node:fs/promises');
    await rm(path.join(dir, 'api/cache/v2'), { recursive: true });
    await writeFile(path.join(dir, 'PROJECT'), recorded);
    await expect(runGenerate({ check: false, generators }, testContext({ cwd: dir }))).rejects.toThrow(
      /has only the version v1: conversion needs two versions or more/,
    );
  });

  const BAD: { name: string; given?: () => Promise<void>; options: CreateWebhookOptions; message: RegExp }[] = [
    {
      name: 'a kind not in PROJECT',
      options: { ...V1, kind: 'Nope', defaulting: true },
      message:
        /Nope cache\.example\.com\/v1 is not in PROJECT.*add the kind first: kop create api --group cache --version v1 --kind Nope/s,
    },
    {
      name: 'a version not in PROJECT',
      options: { ...V1, version: 'v9', defaulting: true },
      message: /is not in PROJECT \(it has v1\)/,
    },
    {
      name: 'a kind without types',
      given: async () => {
        await runCreateApi(
          { group: 'apps', version: 'v1', kind: 'Thing', resource: true, controller: false },
          testContext({ cwd: dir }),
        );
        const { rm } = await import('node:fs/promises');
        await rm(path.join(dir, 'api/apps/v1/thing.types.ts'));
      },
      options: { group: 'apps', version: 'v1', kind: 'Thing', defaulting: true },
      message: /has no types file \(api\/apps\/v1\/thing\.types\.ts\)/,
    },
    {
      name: '--conversion with one version',
      options: { ...V1, conversion: true, spoke: ['v2'] },
      message: /has only the version v1: a conversion webhook converts between versions/,
    },
    {
      name: '--conversion with a spoke that does not exist',
      given: () =>
        runCreateApi({ ...V1, version: 'v2', controller: false }, testContext({ cwd: dir })).then(() => undefined),
      options: { ...V1, conversion: true, spoke: ['v3'] },
      message: /--spoke v3: RedisCluster has no version v3 \(it has v1, v2\)/,
    },
    {
      name: '--spoke naming the hub',
      given: () =>
        runCreateApi({ ...V1, version: 'v2', controller: false }, testContext({ cwd: dir })).then(() => undefined),
      options: { ...V1, conversion: true, spoke: ['v1'] },
      message: /--spoke v1: that is the hub itself/,
    },
    {
      name: 'no webhook kind without a terminal',
      options: { ...V1 },
      message: /no webhook to create.*--defaulting, --programmatic-validation, or --conversion/s,
    },
    {
      name: '--spoke without --conversion',
      options: { ...V1, defaulting: true, spoke: ['v2'] },
      message: /--spoke names the versions of a conversion webhook/,
    },
    {
      name: 'a path without a leading /',
      options: { ...V1, defaulting: true, defaultingPath: 'mutate-me' },
      message: /--defaulting-path.*invalid webhook path "mutate-me": it must start with "\/"/s,
    },
    {
      name: 'a path with a character outside the URL-safe set',
      options: { ...V1, programmaticValidation: true, validationPath: "/validate'me" },
      message: /--validation-path.*invalid webhook path/s,
    },
    {
      name: 'a path with an empty segment',
      options: { ...V1, defaulting: true, defaultingPath: '/a//b' },
      message: /invalid webhook path "\/a\/\/b"/,
    },
    {
      name: 'a path with a .. segment',
      options: { ...V1, defaulting: true, defaultingPath: '/a/../b' },
      message: /invalid webhook path/,
    },
    {
      name: 'a path the manager serves itself',
      options: { ...V1, defaulting: true, defaultingPath: '/convert' },
      message: /the manager serves \/convert itself/,
    },
    {
      name: 'the same path for both webhooks',
      options: { ...V1, defaulting: true, programmaticValidation: true, defaultingPath: '/x', validationPath: '/x' },
      message: /both \/x/,
    },
    {
      name: '--defaulting-path without --defaulting',
      options: { ...V1, programmaticValidation: true, defaultingPath: '/x' },
      message: /--defaulting-path names the path of a defaulting webhook.*pass --defaulting too/s,
    },
    {
      name: '--validation-path without --programmatic-validation',
      options: { ...V1, defaulting: true, validationPath: '/x' },
      message: /--validation-path names the path of a validating webhook/,
    },
    {
      name: 'a path another kind serves',
      given: async () => {
        await runCreateApi({ ...V1, kind: 'Other' }, testContext({ cwd: dir }));
        await create({ ...V1, kind: 'Other', defaulting: true, defaultingPath: '/taken' }).run;
      },
      options: { ...V1, programmaticValidation: true, validationPath: '/taken' },
      message:
        /\/taken is already the path of the defaulting webhook of Other cache\.example\.com\/v1.*pass --validation-path with another path/s,
    },
    {
      name: 'a --plural that differs from PROJECT',
      options: { ...V1, plural: 'redisclusteres', defaulting: true },
      message: /--plural redisclusteres: PROJECT records RedisCluster's plural as redisclusters/,
    },
    {
      name: 'a built-in kind kop/runtime has no descriptor for',
      options: { group: 'core', version: 'v1', kind: 'Endpoints', defaulting: true },
      message: /no built-in kind kop\/runtime has a descriptor for/,
    },
    {
      name: 'a built-in kind in a version it does not have',
      options: { group: 'apps', version: 'v1beta1', kind: 'Deployment', defaulting: true },
      message: /Deployment apps\.example\.com\/v1beta1 is not in PROJECT/,
    },
    {
      name: '--conversion for a built-in kind',
      options: { group: 'core', version: 'v1', kind: 'Pod', conversion: true, spoke: ['v2'] },
      message: /Pod v1 is a built-in kind: only a kind whose CRD this project writes can convert/,
    },
    {
      name: 'an external kind not imported',
      options: { group: 'cert-manager', version: 'v1', kind: 'Issuer', defaulting: true, externalApiDomain: 'io' },
      message: /Issuer cert-manager\.io\/v1 is not an external kind of this project.*kop import crd/s,
    },
    {
      name: 'an npm package as --external-api-module',
      options: {
        group: 'cert-manager',
        version: 'v1',
        kind: 'Issuer',
        defaulting: true,
        externalApiModule: 'x',
        externalApiPath: 'x/v1',
      },
      message:
        /--external-api-module x: a webhook is written against the kind's types.*pass the kind's CRD file or folder as --external-api-module/s,
    },
    {
      name: 'a Go module path without a valid version as --external-api-module',
      options: {
        group: 'cert-manager',
        version: 'v1',
        kind: 'Issuer',
        defaulting: true,
        externalApiPath: 'github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
        externalApiDomain: 'io',
        externalApiModule: 'github.com/cert-manager/cert-manager@1.20',
      },
      message:
        /--external-api-module github\.com\/cert-manager\/cert-manager@1\.20: not a Go module path@version: version "1\.20" is not a semantic version/,
    },
    {
      name: 'an invalid --external-api-domain',
      options: {
        group: 'cert-manager',
        version: 'v1',
        kind: 'Issuer',
        defaulting: true,
        externalApiDomain: 'Not_A_Domain',
      },
      message: /--external-api-domain/,
    },
  ];
  for (const { name, given, options, message } of BAD) {
    it(`refuses ${name} and writes nothing`, async () => {
      await given?.();
      const before = await snapshot(dir);
      const error = await create(options).run.then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message + ' ' + ((error as { hint?: string } | undefined)?.hint ?? '')).toMatch(message);
      expect(await snapshot(dir)).toEqual(before);
    });
  }

  it('serves custom paths: in the marker, the registration and PROJECT, kept by a later call', async () => {
    await create({ ...V1, defaulting: true, defaultingPath: '/custom-mutate' }).run;
    const defaulter = await read('src/webhooks/cache/v1/rediscluster.defaulter.ts');
    expect(defaulter).toContain('+kubebuilder:webhook:path=/custom-mutate,mutating=true,');
    expect(defaulter).toContain(".withDefaulter(this).withDefaulterPath('/custom-mutate').complete();");
    await writeFile(path.join(dir, 'src/webhooks/cache/v1/rediscluster.defaulter.ts'), defaulter + '// my edit\n');
    await create({ ...V1, programmaticValidation: true }).run;
    expect(await read('src/webhooks/cache/v1/rediscluster.defaulter.ts')).toContain('// my edit');
    expect(await read('src/webhooks/cache/v1/rediscluster.validator.ts')).toContain(
      '+kubebuilder:webhook:path=/validate-cache-example-com-v1-rediscluster,',
    );
    expect((await project()).resources[0]!.webhooks).toEqual({
      defaulting: true,
      defaultingPath: '/custom-mutate',
      validation: true,
      webhookVersion: 'v1',
    });
    await runGenerate({ check: false, generators }, testContext({ cwd: dir }));
    expect(await read('config/webhook/manifests.yaml')).toContain('path: /custom-mutate\n');
  });

  it('scaffolds a built-in kind against kop/runtime/builtin and kop/api, and records it as Kubebuilder does', async () => {
    await create({ group: 'core', version: 'v1', kind: 'Pod', defaulting: true }).run;
    await create({ group: 'events', version: 'v1', kind: 'Event', programmaticValidation: true }).run;
    const pod = await read('src/webhooks/core/v1/pod.defaulter.ts');
    expect(pod).toContain("import type { AdmissionContext, Defaulter, Manager } from 'kop/runtime';");
    expect(pod).toContain("import { coreV1PodType } from 'kop/runtime/builtin';");
    expect(pod).toContain("import type { Pod } from 'kop/api';");
    expect(pod).toContain(
      '+kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,',
    );
    expect(await read('src/webhooks/events/v1/event.validator.ts')).toContain(
      'path=/validate-events-k8s-io-v1-event,mutating=false,failurePolicy=fail,sideEffects=None,groups=events.k8s.io,resources=events,',
    );
    const text = await read('PROJECT');
    expect(text).toContain(
      '  - group: core\n    version: v1\n    kind: Pod\n    plural: pods\n    path: k8s.io/api/core/v1\n    core: true\n',
    );
    expect(text).toContain(
      '  - group: events\n    version: v1\n    kind: Event\n    plural: events\n    domain: k8s.io\n    path: k8s.io/api/events/v1\n    core: true\n',
    );
    // A second call for the same built-in kind adds to its entry instead of a second one.
    await create({ group: 'core', version: 'v1', kind: 'Pod', programmaticValidation: true }).run;
    const pods = (await project()).resources.filter((r) => r.kind === 'Pod');
    expect(pods).toHaveLength(1);
    expect(pods[0]!.webhooks).toEqual({ defaulting: true, validation: true, webhookVersion: 'v1' });
    await runGenerate({ check: false, generators }, testContext({ cwd: dir }));
    expect(await read('config/webhook/manifests.yaml')).toMatch(/path: \/mutate--v1-pod\n[^]*?apiGroups:\n    - ""\n/);
  });

  it('finds an external kind by its full recorded group, not by --group and the project domain', async () => {
    const crd = fileURLToPath(new URL('../golden/create-webhook/issuer-crd.yaml', import.meta.url));
    await runImportCrd({ sources: [crd] }, testContext({ cwd: dir }));
    await create({ group: 'cert-manager', version: 'v1', kind: 'Issuer', defaulting: true, externalApiDomain: 'io' })
      .run;
    await create({ group: 'cert-manager', version: 'v1', kind: 'Issuer', programmaticValidation: true }).run;
    const defaulter = await read('src/webhooks/cert-manager/v1/issuer.defaulter.ts');
    expect(defaulter).toContain("import { issuerType } from '../../../../api/cert-manager/v1/issuer.client.js';");
    expect(defaulter).toContain('groups=cert-manager.io,resources=issuers,');
    const issuer = (await project()).resources.find((r) => r.kind === 'Issuer')!;
    expect(issuer).toMatchObject({
      group: 'cert-manager',
      domain: 'io',
      external: true,
      webhooks: { defaulting: true, validation: true, webhookVersion: 'v1' },
    });
    await expect(
      create({
        group: 'cert-manager',
        version: 'v1',
        kind: 'Issuer',
        defaulting: true,
        externalApiDomain: 'example.org',
      }).run,
    ).rejects.toThrow(/Issuer cert-manager\.example\.org\/v1 is not an external kind/);

    // A cluster-scoped external kind: its tests create objects without a namespace.
    const clusterCrd = path.join(dir, 'clusterissuer-crd.yaml');
    await writeFile(
      clusterCrd,
      (await readFile(crd, 'utf8'))
        .replace('name: issuers.cert-manager.io', 'name: clusterissuers.cert-manager.io')
        .replace(
          'kind: Issuer\n    listKind: IssuerList\n    plural: issuers\n    singular: issuer',
          'kind: ClusterIssuer\n    listKind: ClusterIssuerList\n    plural: clusterissuers\n    singular: clusterissuer',
        )
        .replace('scope: Namespaced', 'scope: Cluster'),
    );
    await runImportCrd({ sources: [clusterCrd] }, testContext({ cwd: dir }));
    await create({ group: 'cert-manager', version: 'v1', kind: 'ClusterIssuer', defaulting: true }).run;
    // The kind's fixture follows the scope its types file declares.
    expect(await read('test/fixtures/cert-manager/v1/clusterissuer.ts')).toContain(
      "metadata: { generateName: 'clusterissuer-' },",
    );
    expect(await read('test/fixtures/cert-manager/v1/issuer.ts')).toContain(
      "metadata: { generateName: 'issuer-', namespace },",
    );
  });

  it("imports an external kind's CRD given as --external-api-module, Kubebuilder's Go package path kept, once per module", async () => {
    const crd = fileURLToPath(new URL('../fixtures/external-crds/cert-manager.yaml', import.meta.url));
    await mkdir(path.join(dir, 'test/crds'), { recursive: true });
    await copyFile(crd, path.join(dir, 'test/crds/cert-manager.yaml'));
    const flags = {
      externalApiPath: 'github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
      externalApiDomain: 'io',
      externalApiModule: './test/crds/cert-manager.yaml',
    };
    // No kop import crd before: create webhook brings the kind as create api does.
    await create({ group: 'cert-manager', version: 'v1', kind: 'Issuer', defaulting: true, ...flags }).run;
    const files = await listFiles(dir);
    expect(files).toContain('api/cert-manager/v1/issuer.types.ts');
    expect(files).toContain('api/cert-manager/v1/certificate.types.ts');
    expect(await read('src/webhooks/cert-manager/v1/issuer.defaulter.ts')).toContain(
      "import { issuerType } from '../../../../api/cert-manager/v1/issuer.client.js';",
    );
    const external = (await project()).resources.filter((r) => r.external === true);
    expect(external.map((r) => [r.kind, r.module])).toEqual([
      ['Certificate', './test/crds/cert-manager.yaml'],
      ['Issuer', './test/crds/cert-manager.yaml'],
    ]);
    expect(external.find((r) => r.kind === 'Issuer')).toMatchObject({
      group: 'cert-manager',
      domain: 'io',
      path: 'api/cert-manager/v1/issuer.types.ts',
      webhooks: { defaulting: true },
    });
    // A second call with the same module finds the kind it brought rather than importing it again.
    await create({ group: 'cert-manager', version: 'v1', kind: 'Issuer', programmaticValidation: true, ...flags }).run;
    expect((await project()).resources.find((r) => r.kind === 'Issuer')!.webhooks).toEqual({
      defaulting: true,
      validation: true,
      webhookVersion: 'v1',
    });
  });

  it("writes the spec.foo example only for a spec that still has create api's foo field, else the label example", async () => {
    await create({ ...V1, defaulting: true, programmaticValidation: true }).run;
    expect(await read('src/webhooks/cache/v1/rediscluster.defaulter.ts')).toContain("object.spec.foo ??= 'default';");
    // The user replaced foo with fields of their own, as the types file asks.
    await runCreateApi({ group: 'cache', version: 'v1', kind: 'Queue' }, testContext({ cwd: dir }));
    const types = path.join(dir, 'api/cache/v1/queue.types.ts');
    await writeFile(types, (await readFile(types, 'utf8')).replace(/  foo\?: string;/, '  size?: number;'));
    await create({ group: 'cache', version: 'v1', kind: 'Queue', defaulting: true, programmaticValidation: true }).run;
    const defaulter = await read('src/webhooks/cache/v1/queue.defaulter.ts');
    const validator = await read('src/webhooks/cache/v1/queue.validator.ts');
    expect(defaulter).not.toContain('foo');
    expect(validator).not.toContain('foo');
    expect(defaulter).toContain("'example.com/defaulted': 'true'");
    expect(validator).toContain("metadata.labels['example.com/rejected']");
    const test = await read('test/webhooks/cache/v1/queue.defaulter.test.ts');
    // The tests create their Queues from the kind's one fixture.
    expect(test).toContain("import { validQueue } from '../../../fixtures/cache/v1/queue.js';");
    const fixture = await read('test/fixtures/cache/v1/queue.ts');
    expect(fixture).toContain("import type { Queue } from '../../../../api/cache/v1/queue.types.js';");
    expect(fixture).toContain("apiVersion: 'cache.example.com/v1',");
    expect(fixture).toContain('spec: {},');
  });

  it("reads Kubebuilder's core entry without a domain, and refuses a hand-written webhook path kop cannot serve", async () => {
    const base = (await read('PROJECT')).replace(/resources:[^]*?(?=generated:|$)/, '');
    const core =
      'resources:\n  - group: core\n    version: v1\n    kind: Pod\n    plural: pods\n    path: k8s.io/api/core/v1\n    core: true\n    webhooks:\n      defaulting: true\n      defaultingPath: PATH\n      webhookVersion: v1\n';
    const parsed = parseProjectFile(base + core.replace('PATH', '/mutate-pods'));
    expect(parsed.resources[0]).toMatchObject({
      group: 'core',
      domain: '',
      core: true,
      webhooks: { defaultingPath: '/mutate-pods' },
    });
    expect(formatProjectFile(parsed)).toContain(core.replace('PATH', '/mutate-pods'));
    expect(() => parseProjectFile(base + core.replace('PATH', 'mutate-pods'))).toThrow(
      /PROJECT:\d+: resources\[0\]\.webhooks\.defaultingPath: invalid webhook path "mutate-pods"/,
    );
  });

  it('asks on a terminal for the kinds not given', async () => {
    await runCreateApi({ ...V1, version: 'v2', controller: false }, testContext({ cwd: dir }));
    const { context, run } = create(
      { ...V1 },
      { answers: { '--defaulting': false, '--programmatic-validation': true, '--conversion': true, '--spoke': 'v2' } },
    );
    await run;
    expect(context.asked.map((q) => q.flag)).toEqual([
      '--defaulting',
      '--programmatic-validation',
      '--conversion',
      '--spoke',
    ]);
    expect((await project()).resources.find((r) => r.version === 'v1')!.webhooks).toEqual({
      conversion: true,
      spoke: ['v2'],
      validation: true,
      webhookVersion: 'v1',
    });
  });

  it('prints the plan and writes nothing with --dry-run', async () => {
    const before = await snapshot(dir);
    const { context, run } = create({ ...V1, defaulting: true }, { dryRun: true });
    await run;
    expect(context.out.lines).toContain('CREATE src/webhooks/cache/v1/rediscluster.defaulter.ts');
    expect(context.out.lines).toContain('dry run: nothing was written');
    expect(await snapshot(dir)).toEqual(before);
  });
});
