// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { isAlreadyExists, isNotFound, Manager, silentLogger } from 'kop/runtime';
import { coreV1NamespaceType } from 'kop/runtime/builtin';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { captainType } from '../../api/crew/v1/captain.client.js';
import { CaptainReconciler } from '../../src/controllers/captain.controller.js';
import { validCaptain } from '../fixtures/crew/v1/captain.js';

// Runs the reconciler in a real manager against the API server that test/global-setup.ts
// starts, with the CRDs of config/crd/bases installed (`npm test` runs `kop generate` first).
// Every test file shares the one control plane: the manager watches a namespace of this test's
// own, so tests run at the same time (each reconciler adds its finalizer) never hold on to each
// other's objects.
const NAMESPACE = 'captain-test';

describe('CaptainReconciler', () => {
  const manager = new Manager({
    kubeconfig: inject('kubeconfigPath'),
    namespace: NAMESPACE,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
  });
  // The test reads what the apiserver has now, not the manager's cache.
  const client = manager.apiReader;

  beforeAll(async () => {
    // A cluster these tests ran on before (USE_EXISTING_CLUSTER=true) has the namespace already.
    await client
      .create(coreV1NamespaceType, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })
      .catch((error: unknown) => {
        if (!isAlreadyExists(error)) throw error;
      });
    new CaptainReconciler().setupWithManager(manager);
    manager.start().catch((error: unknown) => {
      throw error;
    });
  });
  afterAll(async () => {
    await manager.stop();
    manager.rest.close();
  });

  it('makes a new Captain Ready, and lets it go when deleted', async () => {
    // validCaptain() is the one place that fills in what a valid Captain needs.
    const created = await client.create(captainType, validCaptain(NAMESPACE));
    const key = { namespace: NAMESPACE, name: created.metadata!.name! };

    const ready = await eventually(async () => {
      const current = await client.get(captainType, key);
      const condition = current.status?.conditions?.find((c) => c.type === 'Ready');
      return condition?.status === 'True' ? current : undefined;
    });
    expect(ready.metadata?.finalizers).toContain(CaptainReconciler.finalizer);
    expect(ready.status?.conditions?.find((c) => c.type === 'Ready')?.observedGeneration).toBe(
      ready.metadata?.generation,
    );

    await client.delete(captainType, key);
    await eventually(() =>
      client.get(captainType, key).then(
        () => false,
        (error: unknown) => isNotFound(error),
      ),
    );
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
