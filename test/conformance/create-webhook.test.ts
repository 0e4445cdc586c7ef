/**
 * Conformance of what `kop create webhook` scaffolds: for every webhook flag (and a
 * cluster-scoped kind, and a kind in a multi-part group), the `+kubebuilder:webhook:` markers it
 * writes give, through controller-gen v0.21.0's `webhook` generator, exactly the
 * config/webhook/manifests.yaml `kop generate` writes; and the conversion patch has the shape of
 * Kubebuilder's config/crd/patches/webhook_in_<plural>.yaml. Needs Go, like controller-gen.test.ts.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { generators } from '../../src/commands/generate.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook, type CreateWebhookOptions } from '../../src/create-webhook/run-create-webhook.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { listFiles } from '../helpers/files.js';
import { controllerGenOnMarkers, goAvailable, parseDocuments } from './controller-gen-tool.js';

const hasGo = await goAvailable();

interface Case {
  name: string;
  /** With `builtin`, no create api: the kind is one of kop/runtime's built-in kinds. */
  api: { group: string; version: string; kind: string; namespaced?: boolean; builtin?: boolean };
  webhook: CreateWebhookOptions;
}

const CASES: Case[] = [
  { name: '--defaulting', api: { group: 'cache', version: 'v1', kind: 'RedisCluster' }, webhook: { defaulting: true } },
  {
    name: '--programmatic-validation',
    api: { group: 'cache', version: 'v1', kind: 'RedisCluster' },
    webhook: { programmaticValidation: true },
  },
  {
    name: '--defaulting --programmatic-validation, cluster-scoped',
    api: { group: 'infra', version: 'v1beta1', kind: 'Zone', namespaced: false },
    webhook: { defaulting: true, programmaticValidation: true },
  },
  {
    name: 'both, in a group with dots',
    api: { group: 'net.edge', version: 'v2alpha1', kind: 'HTTPRoute' },
    webhook: { defaulting: true, programmaticValidation: true },
  },
  {
    name: '--defaulting-path --validation-path',
    api: { group: 'crew', version: 'v1', kind: 'Sailor' },
    webhook: {
      defaulting: true,
      programmaticValidation: true,
      defaultingPath: '/custom-mutate-sailor',
      validationPath: '/custom-validate-sailor',
    },
  },
  {
    name: 'a built-in kind of the core group (Pod)',
    api: { group: 'core', version: 'v1', kind: 'Pod', builtin: true },
    webhook: { defaulting: true, programmaticValidation: true },
  },
  {
    name: 'a built-in kind of a named group (Deployment)',
    api: { group: 'apps', version: 'v1', kind: 'Deployment', builtin: true },
    webhook: { defaulting: true, programmaticValidation: true },
  },
];

async function scaffold(
  api: Case['api'],
  webhook: CreateWebhookOptions,
  extraVersion?: string,
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const { dir, cleanup } = await tempDir('demo');
  const context = () => testContext({ cwd: dir });
  await runInit(
    {
      projectName: 'demo',
      domain: 'example.com',
      owner: 'x',
      license: 'none',
      kopSource: 'file:../kop',
      skipInstall: true,
    },
    context(),
  );
  const { builtin, ...kind } = api;
  if (!builtin) await runCreateApi(kind, context());
  if (extraVersion) await runCreateApi({ ...api, version: extraVersion, controller: false }, context());
  await runCreateWebhook({ group: api.group, version: api.version, kind: api.kind, ...webhook }, context());
  await runGenerate({ check: false, generators }, context());
  return { dir, cleanup };
}

describe.skipIf(!hasGo)('create webhook conformance with controller-gen', () => {
  for (const { name, api, webhook } of CASES) {
    it(name, { timeout: 300_000 }, async () => {
      const { dir, cleanup } = await scaffold(api, webhook);
      try {
        const markerLines: string[] = [];
        for (const file of (await listFiles(dir)).filter((f) => f.startsWith('src/webhooks/'))) {
          for (const line of (await readFile(path.join(dir, file), 'utf8')).split('\n')) {
            const marker = /^\s*\/\/\s*(\+kubebuilder:webhook:.*)$/.exec(line);
            if (marker) markerLines.push(marker[1]!);
          }
        }
        expect(markerLines).toHaveLength((webhook.defaulting ? 1 : 0) + (webhook.programmaticValidation ? 1 : 0));
        const ours = await readFile(path.join(dir, 'config/webhook/manifests.yaml'), 'utf8');
        expect(parseDocuments(ours)).toEqual(parseDocuments(await controllerGenOnMarkers(['webhook'], markerLines)));
      } finally {
        await cleanup();
      }
    });
  }
});

describe('the conversion patch', () => {
  it("has the shape of Kubebuilder's webhook_in_<plural>.yaml", async () => {
    const { dir, cleanup } = await scaffold(
      { group: 'crew', version: 'v1', kind: 'FirstMate' },
      { conversion: true, spoke: ['v2'] },
      'v2',
    );
    try {
      const patch = parseYaml(
        await readFile(path.join(dir, 'config/crd/patches/webhook_in_firstmates.yaml'), 'utf8'),
      ) as unknown;
      expect(patch).toEqual({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'firstmates.crew.example.com' },
        spec: {
          conversion: {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { service: { namespace: 'system', name: 'webhook-service', path: '/convert' } },
              conversionReviewVersions: ['v1'],
            },
          },
        },
      });
      const kustomization = parseYaml(
        await readFile(path.join(dir, 'config/crd/kustomization.yaml'), 'utf8'),
      ) as Record<string, unknown>;
      expect(kustomization.patches).toEqual([{ path: 'patches/webhook_in_firstmates.yaml' }]);
      expect(kustomization.configurations).toEqual(['kustomizeconfig.yaml']);
    } finally {
      await cleanup();
    }
  });
});
