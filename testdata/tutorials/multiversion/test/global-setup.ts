// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

/**
 * Vitest global setup of the `cluster` project (vitest.config.ts): the one real control plane
 * (etcd + kube-apiserver, from kop/testing) that every test under test/controllers and
 * test/webhooks shares, started once per run. It installs this project's CRDs (config/crd/bases,
 * and test/crds for other projects' kinds) and webhook configurations (config/webhook, and the
 * conversion patches of config/crd/patches), pointed at one manager started here that serves every
 * webhook src/webhooks/setup.ts registers, as a deployment does. It starts only when some of those
 * tests run, so the other tests (flags, pure logic) need no control-plane binaries.
 *
 * Each test file works in a namespace of its own (see the scaffolded tests), so files that run at
 * the same time never see each other's objects.
 *
 * How a test reaches it:
 *   import { inject } from 'vitest';
 *   const kubeconfigPath = inject('kubeconfigPath'); // admin (group system:masters) kubeconfig file
 *   const kubeconfig = inject('kubeconfig');         // the same kubeconfig as an object
 * KUBECONFIG is set to the same file for the test workers, so code that loads the default
 * kubeconfig talks to this control plane too.
 *
 * The binaries come from `npx kop setup-envtest` (downloaded, or built where that fails; cached),
 * or KUBEBUILDER_ASSETS.
 * USE_EXISTING_CLUSTER=true runs the tests against your current kubeconfig's cluster instead;
 * KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true shows the control plane's logs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Manager, silentLogger } from 'kop/runtime';
import { startControlPlane, type ControlPlane, type Kubeconfig } from 'kop/testing';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the admin kubeconfig of the test control plane. */
    kubeconfigPath: string;
    /** The admin kubeconfig of the test control plane. */
    kubeconfig: Kubeconfig;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = project.config.root;
  const crds = [join(root, 'config', 'crd', 'bases'), join(root, 'test', 'crds')].filter((dir) => existsSync(dir));
  const plane = await startControlPlane({
    crds,
    // Folders a project without webhooks has not got yet count as empty.
    webhooks: {
      paths: [join(root, 'config', 'webhook')],
      conversionPatches: [join(root, 'config', 'crd', 'patches')],
    },
  });
  let stopWebhooks: (() => Promise<void>) | undefined;
  try {
    const webhookSetup = join(root, 'src', 'webhooks', 'setup.ts');
    if (existsSync(webhookSetup)) stopWebhooks = await serveWebhooks(plane, webhookSetup);
  } catch (error) {
    await plane.stop();
    throw error;
  }
  const previousKubeconfig = process.env.KUBECONFIG;
  project.provide('kubeconfigPath', plane.kubeconfigPath);
  project.provide('kubeconfig', plane.kubeconfig);
  process.env.KUBECONFIG = plane.kubeconfigPath;
  return async () => {
    if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previousKubeconfig;
    await stopWebhooks?.();
    await plane.stop();
  };
}

/**
 * Starts a manager that serves every webhook setupWebhooks() (from `kop create webhook`) registers,
 * at the address the control plane's webhook configurations call, and resolves once it serves:
 * the apiserver refuses writes while a webhook it must call does not answer. Returns its stop.
 */
async function serveWebhooks(plane: ControlPlane, setupFile: string): Promise<() => Promise<void>> {
  // Imported by path: the file exists only once the project has a webhook.
  const { setupWebhooks } = (await import(setupFile)) as { setupWebhooks: (manager: Manager) => void };
  const webhook = plane.webhook!;
  const manager = new Manager({
    kubeconfig: plane.kubeconfigPath,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    webhookServer: { host: webhook.host, port: webhook.port, certDir: webhook.certDir },
    logger: silentLogger,
  });
  setupWebhooks(manager);
  let failure: Error | undefined;
  const running = manager.start().catch((error: unknown) => {
    failure = error instanceof Error ? error : new Error(String(error));
  });
  const stop = async () => {
    await manager.stop();
    await running;
    manager.rest.close();
  };
  const deadline = Date.now() + 30_000;
  while (manager.webhookAddress === undefined) {
    if (failure !== undefined || Date.now() > deadline) {
      await stop();
      throw failure ?? new Error('the webhook server did not start within 30 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return stop;
}
