// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

/**
 * End to end (`npm run test:e2e`, which builds first): the built manager, `node dist/src/main.js`,
 * runs as a process against a real control plane (etcd + kube-apiserver from kop/testing) with
 * this project's CRDs and webhook configurations installed, as it would in a cluster. It becomes
 * ready, every sample in config/samples is accepted (through the manager's webhooks, when there
 * are some), the manager keeps running, and SIGTERM stops it with exit code 0.
 *
 * The binaries come from `npx kop setup-envtest` (or KUBEBUILDER_ASSETS), as for `npm test`.
 * Kubebuilder's e2e suite deploys the image to a kind cluster instead; `npm run deploy` does that
 * against a cluster of yours.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startControlPlane, type ControlPlane } from 'kop/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** A TCP port that is free now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

describe('the built manager', () => {
  let plane: ControlPlane;
  let manager: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;
  let healthPort: number;

  beforeAll(async () => {
    expect(
      existsSync(join(root, 'dist', 'src', 'main.js')),
      'dist/src/main.js is missing: run `npm run build` (npm run test:e2e does)',
    ).toBe(true);
    const crds = join(root, 'config', 'crd', 'bases');
    const webhooks = join(root, 'config', 'webhook');
    const patches = join(root, 'config', 'crd', 'patches');
    plane = await startControlPlane({
      crds: existsSync(crds) ? [crds] : [],
      ...(existsSync(join(webhooks, 'manifests.yaml'))
        ? { webhooks: { paths: [webhooks], conversionPatches: existsSync(patches) ? [patches] : [] } }
        : {}),
    });
    healthPort = await freePort();
    const webhookArgs = plane.webhook
      ? ['--webhook-port', String(plane.webhook.port), '--webhook-cert-path', plane.webhook.certDir]
      : [];
    manager = spawn(
      process.execPath,
      [
        'dist/src/main.js',
        '--kubeconfig',
        plane.kubeconfigPath,
        '--health-probe-bind-address',
        `127.0.0.1:${healthPort}`,
        '--metrics-bind-address',
        '0',
        ...webhookArgs,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    manager.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    manager.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => manager.once('exit', (code) => resolve(code)));
  });

  afterAll(async () => {
    if (manager && manager.exitCode === null) {
      manager.kill('SIGKILL');
      await exited;
    }
    await plane?.stop();
  });

  it('becomes ready', async () => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${healthPort}/readyz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      expect(manager.exitCode, `the manager exited:\n${output}`).toBeNull();
      if (Date.now() > deadline) throw new Error(`the manager was not ready within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  it('accepts the samples and keeps running', async () => {
    const kubectl = plane.binaries?.kubectl;
    const samples = join(root, 'config', 'samples');
    // `kop create api` adds one sample per kind; a project without APIs has none yet.
    const hasSamples = (await readdir(samples)).some((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml');
    if (hasSamples) {
      expect(kubectl, 'kubectl is missing: run `npx kop setup-envtest`').toBeDefined();
      const applied = await run(kubectl!, [
        '--kubeconfig',
        plane.kubeconfigPath,
        'apply',
        '--server-side',
        '-k',
        samples,
      ]);
      expect(applied.stdout).toMatch(/serverside-applied|created|configured/);
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(manager.exitCode, `the manager exited:\n${output}`).toBeNull();
  });

  it('stops on SIGTERM with exit code 0', async () => {
    manager.kill('SIGTERM');
    expect(await exited, output).toBe(0);
  });
});
