import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KopError, UsageError } from '../../src/base/errors.js';
import { generators } from '../../src/commands/generate.js';
import { runCreateApi, type CreateApiOptions } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runInit } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { createApiOptions } from '../../src/alpha/project-features.js';
import { testContext, type TestContextOptions } from '../helpers/fake-context.js';
import { preparedProject } from '../helpers/prepared-project.js';
import { listFiles } from '../helpers/files.js';

const V1 = { group: 'cache', version: 'v1', kind: 'RedisCluster' } as const;
const V2 = { ...V1, version: 'v2', controller: false } as const;

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of await listFiles(dir)) out[file] = await readFile(path.join(dir, file), 'utf8');
  return out;
}

/**
 * `kop create api` for a new version of a kind offers its conversion: `--conversion` scaffolds what
 * `kop create webhook --conversion` does (the storage version the hub, the new version a spoke),
 * `--no-conversion` records the no-op conversion (the CRD's strategy None), a terminal asks, and
 * `kop generate` compares the versions' schemas to say which of the two fits.
 */
describe('kop create api --conversion', () => {
  let dirs: { dir: string; cleanup: () => Promise<void> }[] = [];
  let dir: string;
  const read = (file: string, root = dir) => readFile(path.join(root, file), 'utf8');
  const project = async (root = dir) => parseProjectFile(await read('PROJECT', root));
  const createApi = (options: CreateApiOptions, extra: Partial<TestContextOptions> = {}, root = dir) => {
    const context = testContext({ cwd: root, ...extra });
    return { context, run: runCreateApi(options, context) };
  };
  const generate = async () => {
    const context = testContext({ cwd: dir });
    await runGenerate({ check: false, generators }, context);
    return context.out;
  };
  const crd = async () =>
    parseYaml(await read('config/crd/bases/cache.example.com_redisclusters.yaml')) as {
      spec: { conversion?: unknown; versions: { name: string }[] };
    };
  /** A project with RedisCluster v1 (and its reconciler). */
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
    await runCreateApi({ ...V1 }, testContext({ cwd: at }));
  });
  const newProject = async () => {
    const made = await prepared();
    dirs.push(made);
    return made.dir;
  };

  beforeEach(async () => {
    dir = await newProject();
  });
  afterEach(async () => {
    for (const made of dirs) await made.cleanup();
    dirs = [];
  });

  it('scaffolds exactly what create api and then create webhook --conversion do, in one plan', async () => {
    const { context, run } = createApi({ ...V2, conversion: true });
    await run;
    const other = await newProject();
    await createApi({ ...V2 }, {}, other).run;
    await runCreateWebhook({ ...V1, conversion: true, spoke: ['v2'] }, testContext({ cwd: other }));
    expect(await snapshot(dir)).toEqual(await snapshot(other));

    expect((await project()).resources.find((r) => r.version === 'v1')!.webhooks).toEqual({
      conversion: true,
      spoke: ['v2'],
      webhookVersion: 'v1',
    });
    expect(await read('api/cache/v1/rediscluster.types.ts')).toContain('+kubebuilder:storageversion');
    expect(context.out.lines).toContain('CREATE src/webhooks/cache/v2/rediscluster.conversion.ts');
    expect(context.out.lines).toContain('CREATE test/conversions/cache/v2/rediscluster.round-trip.test.ts');
    expect(context.out.lines.join('\n')).toContain('RedisCluster v2 converts to and from v1, the hub');
    // The storage version is marked already: no warning to mark one.
    expect(context.out.warnings.join('\n')).not.toContain('mark exactly one');
  });

  it('adds a third version as another spoke of the same hub, and generate writes the webhook patch', async () => {
    await createApi({ ...V2, conversion: true }).run;
    const { context, run } = createApi({ ...V2, version: 'v3', conversion: true });
    await run;
    expect((await project()).resources.find((r) => r.version === 'v1')!.webhooks?.spoke).toEqual(['v2', 'v3']);
    expect(context.out.lines.filter((line) => line.startsWith('CREATE src/webhooks'))).toEqual([
      'CREATE src/webhooks/cache/v3/rediscluster.conversion.ts',
    ]);
    const setup = await read('src/webhooks/setup.ts');
    expect(setup).toContain('setupRedisClusterV2Conversion(manager);');
    expect(setup).toContain('setupRedisClusterV3Conversion(manager);');
    const out = await generate();
    expect(await read('config/crd/patches/webhook_in_redisclusters.yaml')).toContain('strategy: Webhook');
    expect((await crd()).spec.conversion).toBeUndefined();
    // Three versions as scaffolded, all the same: the webhook could go.
    expect(out.lines.join('\n')).toContain(
      'redisclusters.cache.example.com: v1, v2, v3 have the same schema, so the conversion webhook could go',
    );
  });

  it('makes every other version a spoke when the kind had no conversion yet', async () => {
    await createApi({ ...V2 }).run;
    await createApi({ ...V2, version: 'v3', conversion: true }).run;
    // v1 holds no storage marker yet: it is the first version, so the hub, and now marked.
    expect((await project()).resources.find((r) => r.version === 'v1')!.webhooks?.spoke).toEqual(['v2', 'v3']);
  });

  it('--no-conversion records strategy None; generate writes it and warns once the schemas differ', async () => {
    const { context, run } = createApi({ ...V2, conversion: false });
    await run;
    const v2 = (await project()).resources.find((r) => r.version === 'v2')!;
    expect(v2.api).toEqual({ crdVersion: 'v1', namespaced: true, conversion: 'None' });
    expect(await read('PROJECT')).toMatch(/version: v2\n[^]*conversion: None/);
    expect(context.out.lines.join('\n')).toContain("convert by apiVersion alone (the CRD's conversion strategy None)");
    expect(await listFiles(dir)).not.toContain('src/webhooks/setup.ts');
    // The replay of `kop alpha generate` passes it again.
    expect(createApiOptions(v2, await project()).conversion).toBe(false);

    // The storage version must be marked by hand without a webhook.
    const v1Types = 'api/cache/v1/rediscluster.types.ts';
    await writeFile(
      path.join(dir, v1Types),
      (await read(v1Types)).replace(
        ' * +kubebuilder:object:root=true\n',
        ' * +kubebuilder:object:root=true\n * +kubebuilder:storageversion\n',
      ),
    );
    let out = await generate();
    expect((await crd()).spec.conversion).toEqual({ strategy: 'None' });
    expect(out.warnings).toEqual([]);

    // v2 gains a field v1 has not: the apiserver would drop it converting to v1.
    const v2Types = 'api/cache/v2/rediscluster.types.ts';
    await writeFile(
      path.join(dir, v2Types),
      (await read(v2Types)).replace(
        /(export interface RedisClusterSpec \{\n)/,
        '$1  /** +optional */\n  mode?: string;\n',
      ),
    );
    out = await generate();
    expect(out.warnings.join('\n')).toContain(
      'redisclusters.cache.example.com: v2 differs from v1 at .spec.mode, and PROJECT records conversion strategy None',
    );
    expect(out.warnings.join('\n')).toContain(
      'kop create webhook --group cache --version v1 --kind RedisCluster --conversion --spoke v2',
    );

    // The webhook replaces the None choice, in PROJECT and in the CRD.
    await runCreateWebhook({ ...V1, conversion: true, spoke: ['v2'] }, testContext({ cwd: dir }));
    expect((await project()).resources.find((r) => r.version === 'v2')!.api?.conversion).toBeUndefined();
    out = await generate();
    expect((await crd()).spec.conversion).toBeUndefined();
    expect(out.warnings).toEqual([]);
  });

  it('without a choice, generate says when the versions are the same and warns when they differ', async () => {
    const { context, run } = createApi({ ...V2 });
    await run;
    // Off a terminal nothing is asked, and the hint names the command.
    expect(context.asked.map((q) => q.flag)).not.toContain('--conversion');
    expect(context.out.lines.join('\n')).toContain(
      'kop create webhook --group cache --version v1 --kind RedisCluster --conversion --spoke v2',
    );
    const v1Types = 'api/cache/v1/rediscluster.types.ts';
    await writeFile(
      path.join(dir, v1Types),
      (await read(v1Types)).replace(
        ' * +kubebuilder:object:root=true\n',
        ' * +kubebuilder:object:root=true\n * +kubebuilder:storageversion\n',
      ),
    );
    let out = await generate();
    expect(out.lines.join('\n')).toContain(
      'redisclusters.cache.example.com: v2 has the same schema as v1, so no conversion webhook is needed',
    );
    expect((await crd()).spec.conversion).toBeUndefined();
    await writeFile(path.join(dir, v1Types), (await read(v1Types)).replace('foo?: string;', 'foo?: int32;'));
    await writeFile(
      path.join(dir, v1Types),
      (await read(v1Types)).replace('import type { Condition,', 'import type { Condition, int32,'),
    );
    out = await generate();
    expect(out.warnings.join('\n')).toMatch(
      /redisclusters\.cache\.example\.com: v2 differs from v1 at \.spec\.foo \(format\), and there is no conversion webhook/,
    );
  });

  it.each([
    { answer: 'webhook', spokes: ['v2'], none: undefined },
    { answer: 'none', spokes: undefined, none: 'None' },
    { answer: 'later', spokes: undefined, none: undefined },
  ])('asks on a terminal: $answer', async ({ answer, spokes, none }) => {
    const { context, run } = createApi(
      { group: 'cache', version: 'v2', kind: 'RedisCluster' },
      { answers: { '--resource': true, '--controller': false, '--conversion': answer } },
    );
    await run;
    const question = context.asked.find((q) => q.flag === '--conversion');
    expect(question).toMatchObject({ type: 'select', choices: ['webhook', 'none', 'later'], initial: 'later' });
    expect(question?.message).toContain('webhook: conversion functions with v1 (the storage version) as the hub');
    const resources = (await project()).resources;
    expect(resources.find((r) => r.version === 'v1')!.webhooks?.spoke).toEqual(spokes);
    expect(resources.find((r) => r.version === 'v2')!.api?.conversion).toEqual(none);
  });

  it('asks nothing for a first version', async () => {
    const { context, run } = createApi(
      { group: 'cache', version: 'v1', kind: 'Memcached' },
      { answers: { '--resource': true, '--controller': false } },
    );
    await run;
    expect(context.asked.map((q) => q.flag)).toEqual(['--resource', '--controller']);
  });

  const BAD: {
    name: string;
    before?: () => Promise<void>;
    options: CreateApiOptions;
    error: typeof UsageError | typeof KopError;
    message: RegExp;
  }[] = [
    {
      name: '--conversion on the first version of a kind',
      options: { group: 'cache', version: 'v1alpha1', kind: 'Memcached', conversion: true },
      error: UsageError,
      message:
        /--conversion: Memcached has no other version, so v1alpha1 would be its first and there is nothing to convert between; kop create api wrote nothing/,
    },
    {
      name: '--no-conversion on the first version of a kind',
      options: { group: 'cache', version: 'v1alpha1', kind: 'Memcached', conversion: false },
      error: UsageError,
      message: /--no-conversion: Memcached has no other version/,
    },
    {
      name: '--conversion with --no-resource',
      options: { ...V2, resource: false, controller: true, conversion: true },
      error: UsageError,
      message: /--conversion decides how the new version's types convert, so it needs --resource/,
    },
    {
      name: '--no-conversion for a kind that converts through a webhook',
      before: async () => {
        await createApi({ ...V2, conversion: true }).run;
      },
      options: { ...V2, version: 'v3', conversion: false },
      error: KopError,
      message:
        /RedisCluster converts through a webhook already \(hub v1, PROJECT\); a CRD has one conversion strategy, so v3 converts through it too; kop create api wrote nothing/,
    },
    {
      name: '--conversion when another version than the hub is marked as the storage version',
      before: async () => {
        await createApi({ ...V2 }).run;
        const v2Types = 'api/cache/v2/rediscluster.types.ts';
        await writeFile(
          path.join(dir, v2Types),
          (await read(v2Types)).replace(
            ' * +kubebuilder:object:root=true\n',
            ' * +kubebuilder:object:root=true\n * +kubebuilder:storageversion\n',
          ),
        );
        await runCreateWebhook({ ...V1, version: 'v2', conversion: true, spoke: ['v1'] }, testContext({ cwd: dir }));
        // The user moves the storage marker back to v1: the recorded hub v2 is no longer it.
        await writeFile(path.join(dir, v2Types), (await read(v2Types)).replace(' * +kubebuilder:storageversion\n', ''));
        const v1Types = 'api/cache/v1/rediscluster.types.ts';
        await writeFile(
          path.join(dir, v1Types),
          (await read(v1Types)).replace(
            ' * +kubebuilder:object:root=true\n',
            ' * +kubebuilder:object:root=true\n * +kubebuilder:storageversion\n',
          ),
        );
      },
      options: { ...V2, version: 'v3', conversion: true },
      error: KopError,
      message:
        /RedisCluster v1 is marked \+kubebuilder:storageversion .*, but the hub of a conversion is the storage version/,
    },
  ];
  it.each(BAD)('refuses $name and writes nothing', async ({ before, options, error, message }) => {
    await before?.();
    const before_ = await snapshot(dir);
    const attempt = createApi(options).run;
    await expect(attempt).rejects.toThrow(error);
    await expect(attempt).rejects.toThrow(message);
    expect(await snapshot(dir)).toEqual(before_);
  });
});
