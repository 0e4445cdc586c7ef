// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { isAlreadyExists, isInvalid, isNotFound, Manager, silentLogger } from 'kop/runtime';
import { appsV1DeploymentType, coreV1NamespaceType, eventsV1EventType } from 'kop/runtime/builtin';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { memcachedType } from '../../api/example.com/v1alpha1/memcached.client.js';
import { MemcachedReconciler, memcachedImage } from '../../src/controllers/memcached.controller.js';
import { validMemcached } from '../fixtures/example.com/v1alpha1/memcached.js';

// Runs the reconciler in a real manager against the API server that test/global-setup.ts starts
// (`npm test` runs `kop generate` first). That control plane has no kubelet and no controllers of
// its own: Deployments get no pods and no status, so the test plays the Deployment controller's
// part where it needs a rolled-out Deployment, and garbage collection of owned objects does not run.

// Every test file shares the one control plane: the manager watches a namespace of this test's
// own, so tests run at the same time never see, or hold on to, each other's objects.
const NAMESPACE = 'memcached-test';

describe('MemcachedReconciler', () => {
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
    new MemcachedReconciler().setupWithManager(manager);
    manager.start().catch((error: unknown) => {
      throw error;
    });
  });
  afterAll(async () => {
    await manager.stop();
    manager.rest.close();
  });

  it('runs the image as a Deployment sized by spec.size, reports its state, and finalizes', async () => {
    // validMemcached() is the one place that fills in what a valid Memcached needs; this test sizes it.
    const valid = validMemcached(NAMESPACE);
    const created = await client.create(memcachedType, { ...valid, spec: { ...valid.spec, size: 2 } });
    const key = { namespace: NAMESPACE, name: created.metadata!.name! };

    // The Deployment: owned by the Memcached, two replicas of the image, restricted pod security.
    const deployment = await eventually(() => client.get(appsV1DeploymentType, key).catch(() => undefined));
    expect(deployment.spec?.replicas).toBe(2);
    expect(deployment.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'Memcached',
        name: key.name,
        uid: created.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
      }),
    ]);
    const pod = deployment.spec!.template.spec!;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    const container = pod.containers[0];
    expect(container.image).toBe(memcachedImage());
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.securityContext?.runAsUser).toBe(1001);
    expect(container.command).toEqual(['memcached', '--memory-limit=64', '-o', 'modern', '-v']);
    expect(container.ports).toEqual([expect.objectContaining({ containerPort: 11211 })]);

    // No pods can run here, so the Deployment is not available yet and the Memcached says so.
    const progressing = await eventually(async () => {
      const current = await client.get(memcachedType, key);
      return condition(current, 'Progressing') === 'True' ? current : undefined;
    });
    expect(condition(progressing, 'Available')).toBe('False');
    expect(condition(progressing, 'Degraded')).toBe('False');
    expect(progressing.metadata?.finalizers).toContain(MemcachedReconciler.finalizer);

    // spec.size drives the replicas, within the CRD's bounds.
    // Merge patches carry no resourceVersion, so they do not race with the reconciler's status writes.
    await client.patch(memcachedType, key, { type: 'merge', patch: { spec: { size: 3 } } });
    const scaled = await eventually(async () => {
      const current = await client.get(appsV1DeploymentType, key);
      return current.spec?.replicas === 3 ? current : undefined;
    });
    await expect(client.patch(memcachedType, key, { type: 'merge', patch: { spec: { size: 4 } } })).rejects.toSatisfy(
      isInvalid,
    );

    // Play the Deployment controller: three replicas rolled out and available.
    await client.status().update(appsV1DeploymentType, {
      ...scaled,
      status: {
        observedGeneration: scaled.metadata!.generation,
        replicas: 3,
        updatedReplicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
      },
    });
    const available = await eventually(async () => {
      const current = await client.get(memcachedType, key);
      return condition(current, 'Available') === 'True' ? current : undefined;
    });
    expect(condition(available, 'Progressing')).toBe('False');

    // Deleting goes through the finalizer: a Warning event, then the Memcached is gone.
    await client.delete(memcachedType, key);
    await eventually(() =>
      client.get(memcachedType, key).then(
        () => false,
        (error: unknown) => isNotFound(error),
      ),
    );
    const events = await client.list(eventsV1EventType, { namespace: NAMESPACE });
    expect(
      events.items.some(
        (event) =>
          event.reason === 'Deleting' && event.type === 'Warning' && event.regarding?.uid === created.metadata!.uid,
      ),
    ).toBe(true);
  });
});

function condition(
  object: { status?: { conditions?: { type: string; status: string }[] } },
  type: string,
): string | undefined {
  return object.status?.conditions?.find((c) => c.type === type)?.status;
}

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
