import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Exec } from '../../src/base/context.js';
import { execaExec } from '../../src/base/make-context.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { firstMissingFile } from '../../src/deploy/render-kustomization.js';
import { runBuildInstaller, runDeploy } from '../../src/deploy/run-deploy.js';
import { generators } from '../../src/commands/generate.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { renderConfigVariants } from '../../src/helm/render-variants.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from '../helpers/fake-context.js';

/** kubectl for real (config/ is built with `kubectl kustomize`); anything else init runs succeeds doing nothing. */
const exec: Exec = async (file, args, options) =>
  file === 'kubectl' ? execaExec(file, args, options) : { exitCode: 0, stdout: '', stderr: '' };

describe('kop build-installer and kop deploy on a fresh project', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('my-operator'));
    await runInit(
      {
        domain: 'example.com',
        projectName: 'demo',
        owner: 'Example Authors',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      testContext({ cwd: dir, exec }),
    );
  });
  afterEach(() => cleanup());

  it('accepts --image controller:latest, the image config/manager already names (Kubebuilder default IMG)', async () => {
    const context = testContext({ cwd: dir, exec });
    await runBuildInstaller({ image: 'controller:latest' }, context);
    const installer = await readFile(path.join(dir, 'dist/install.yaml'), 'utf8');
    expect(installer).toMatch(/image: controller:latest/);
    await runBuildInstaller({ image: 'registry.example.com/demo:v1' }, context);
    expect(await readFile(path.join(dir, 'dist/install.yaml'), 'utf8')).toMatch(
      /image: registry\.example\.com\/demo:v1/,
    );
  });

  it('kop deploy --image controller:latest gets past the image to the cluster', async () => {
    const context = testContext({ cwd: dir, exec });
    context.env = { KUBECONFIG: path.join(dir, 'no-such-kubeconfig') };
    await expect(runDeploy({ image: 'controller:latest' }, context)).rejects.toThrow(/kubeconfig|KUBECONFIG/i);
    await expect(runDeploy({ image: 'controller:latest' }, context)).rejects.not.toThrow(/to replace/);
  });

  it('right after create webhook, before kop generate, says to run `kop generate manifests` (build-installer, the helm chart)', async () => {
    const V1 = { group: 'cache', version: 'v1', kind: 'RedisCluster' } as const;
    await runCreateApi({ ...V1 }, testContext({ cwd: dir }));
    await runCreateWebhook({ ...V1, defaulting: true, programmaticValidation: true }, testContext({ cwd: dir }));
    const context = testContext({ cwd: dir, exec });
    const want = {
      message: 'config/webhook/kustomization.yaml does not exist, and config/default/kustomization.yaml lists it',
      hint: expect.stringContaining('run `kop generate manifests` first') as unknown,
    };
    await expect(runBuildInstaller({ image: 'controller:latest' }, context)).rejects.toMatchObject(want);
    await expect(renderConfigVariants(context)).rejects.toMatchObject(want);
    // Once generated, both build.
    await runGenerate(
      { check: false, generators: generators.filter((g) => g.name === 'manifests') },
      testContext({ cwd: dir }),
    );
    await runBuildInstaller({ image: 'controller:latest' }, context);
    expect(await readFile(path.join(dir, 'dist/install.yaml'), 'utf8')).toContain('ValidatingWebhookConfiguration');
    expect((await renderConfigVariants(context)).full.length).toBeGreaterThan(0);
  });
});

describe('firstMissingFile', () => {
  it('finds a missing file or kustomization through included folders, and nothing when all are there', async () => {
    const { dir, cleanup } = await tempDir('k');
    try {
      await mkdir(path.join(dir, 'a/b'), { recursive: true });
      await writeFile(path.join(dir, 'a/kustomization.yaml'), 'resources:\n  - b\n  - https://example.com/x\n');
      await writeFile(path.join(dir, 'a/b/kustomization.yaml'), 'resources:\n  - x.yaml\npatches:\n  - path: p.yaml\n');
      await writeFile(path.join(dir, 'a/b/x.yaml'), '');
      expect(await firstMissingFile(path.join(dir, 'a'))).toEqual({
        file: path.join(dir, 'a/b/p.yaml'),
        listedIn: path.join(dir, 'a/b/kustomization.yaml'),
      });
      await writeFile(path.join(dir, 'a/b/p.yaml'), '');
      expect(await firstMissingFile(path.join(dir, 'a'))).toBeUndefined();
      await rm(path.join(dir, 'a/b/kustomization.yaml'));
      expect(await firstMissingFile(path.join(dir, 'a'))).toEqual({
        file: path.join(dir, 'a/b/kustomization.yaml'),
        listedIn: path.join(dir, 'a/kustomization.yaml'),
      });
    } finally {
      await cleanup();
    }
  });
});
