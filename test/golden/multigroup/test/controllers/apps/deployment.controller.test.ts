// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { Manager, silentLogger, type ReconcileContext, type ReconcileResult, type Request } from 'kop/runtime';
import { appsV1DeploymentType } from 'kop/runtime/builtin';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DeploymentReconciler } from '../../../src/controllers/apps/deployment.controller.js';

/** The reconciler, counting the reconciles of each object that ended without an error. */
class ObservedDeploymentReconciler extends DeploymentReconciler {
  readonly done = new Map<string, number>();

  override async reconcile(request: Request, context: ReconcileContext): Promise<ReconcileResult> {
    const result = await super.reconcile(request, context);
    const key = `${request.namespace ?? ''}/${request.name}`;
    this.done.set(key, (this.done.get(key) ?? 0) + 1);
    return result;
  }
}

// Runs the reconciler in a real manager against the API server that test/global-setup.ts starts.
describe('DeploymentReconciler', () => {
  const manager = new Manager({
    kubeconfig: inject('kubeconfigPath'),
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
  });
  // The test reads and writes the apiserver directly, not through the manager's cache.
  const client = manager.apiReader;
  const reconciler = new ObservedDeploymentReconciler();

  beforeAll(() => {
    reconciler.setupWithManager(manager);
    manager.start().catch((error: unknown) => {
      throw error;
    });
  });
  afterAll(async () => {
    await manager.stop();
    manager.rest.close();
  });

  it('reconciles a new Deployment, and again once it is deleted', async () => {
    const created = await client.create(appsV1DeploymentType, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        generateName: 'deployment-',
        namespace: 'default',
      },
      spec: {
        replicas: 1,
        selector: {
          matchLabels: {
            app: 'sample',
          },
        },
        template: {
          metadata: {
            labels: {
              app: 'sample',
            },
          },
          spec: {
            containers: [
              {
                name: 'app',
                image: 'registry.k8s.io/pause:3.10',
              },
            ],
          },
        },
      },
    });
    const key = { namespace: 'default', name: created.metadata!.name! };
    // As the reconciler above counts it: `<namespace>/<name>`.
    const id = `${created.metadata!.namespace ?? ''}/${key.name}`;

    const before = await eventually(() => Promise.resolve(reconciler.done.get(id)));
    await client.delete(appsV1DeploymentType, key);
    await eventually(() => Promise.resolve((reconciler.done.get(id) ?? 0) > before));
    expect(reconciler.done.get(id)).toBeGreaterThan(before);
  });
});

/** Polls `check` until it returns a truthy value; fails after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
