import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Exec } from '../../src/base/context.js';
import { execaExec } from '../../src/base/make-context.js';
import { runBuildInstaller, runDeploy } from '../../src/deploy/run-deploy.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from './helpers/fake-context.js';

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
});
