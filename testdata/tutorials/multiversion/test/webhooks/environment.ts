// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Manager, silentLogger, type Client } from 'kop/runtime';
import { startControlPlane } from 'kop/testing';
import { afterAll, beforeAll } from 'vitest';
import { setupWebhooks } from '../../src/webhooks/setup.js';

/** A control plane with this project's webhooks installed and a manager serving them. */
export interface WebhookEnvironment {
  /** Admin client, talking to the apiserver (which calls the webhooks). */
  client: Client;
  /** Stops the manager and the control plane. */
  stop(): Promise<void>;
}

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Starts a control plane of its own (as Kubebuilder's webhook suite does with envtest) with the
 * CRDs (this project's, and in test/crds those of other projects' kinds it has webhooks for),
 * the webhook configurations of config/webhook (pointed at this process instead of the
 * webhook Service) and the CRD conversion patches of config/crd/patches, then a manager serving
 * every webhook setupWebhooks() registers. `npm test` runs `kop generate` first, so the
 * manifests match the markers.
 */
export async function startWebhookEnvironment(): Promise<WebhookEnvironment> {
  const patches = join(projectRoot, 'config', 'crd', 'patches');
  const crds = [join(projectRoot, 'config', 'crd', 'bases'), join(projectRoot, 'test', 'crds')].filter((dir) =>
    existsSync(dir),
  );
  const plane = await startControlPlane({
    crds,
    webhooks: {
      paths: [join(projectRoot, 'config', 'webhook')],
      conversionPatches: existsSync(patches) ? [patches] : [],
    },
  });
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
  // The apiserver refuses writes while a webhook it must call does not answer: wait until it serves.
  const deadline = Date.now() + 30_000;
  while (manager.webhookAddress === undefined) {
    if (failure !== undefined) throw failure;
    if (Date.now() > deadline) throw new Error('the webhook server did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    client: manager.apiReader,
    async stop() {
      await manager.stop();
      await running;
      manager.rest.close();
      await plane.stop();
    },
  };
}

/**
 * Starts a webhook environment before the tests of the calling file and stops it after them;
 * call it at the top of a `describe`. The returned function gives the running environment.
 */
export function useWebhookEnvironment(): () => WebhookEnvironment {
  let environment: WebhookEnvironment | undefined;
  beforeAll(async () => {
    environment = await startWebhookEnvironment();
  }, 120_000);
  afterAll(async () => {
    await environment?.stop();
  });
  return () => {
    if (environment === undefined) throw new Error('the webhook environment has not started');
    return environment;
  };
}
