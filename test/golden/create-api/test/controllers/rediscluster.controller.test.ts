// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { namespacedResource, RestClient } from 'kop/runtime';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { API_VERSION, GROUP, VERSION } from '../../api/cache/v1alpha1/groupversion.js';
import type { RedisCluster } from '../../api/cache/v1alpha1/rediscluster.types.js';
import { RedisClusterReconciler } from '../../src/controllers/rediscluster.controller.js';

// Runs against the real API server that test/global-setup.ts starts, with the CRDs of
// config/crd/bases installed: run `npm run manifests` after changing the API types.
describe('RedisClusterReconciler', () => {
  const rest = RestClient.load({ kubeconfig: inject('kubeconfigPath') });
  const objects = namespacedResource<RedisCluster>(rest, { group: GROUP, version: VERSION, resource: 'redisclusters', kind: 'RedisCluster', namespaced: true }).inNamespace('default');
  afterAll(() => rest.close());

  it('reconciles a RedisCluster that the API server accepted', async () => {
    const created = await objects.create({
      apiVersion: API_VERSION,
      kind: 'RedisCluster',
      metadata: { generateName: 'rediscluster-' },
      spec: { foo: 'bar' },
    });
    const name = created.metadata!.name!;
    expect(created.spec.foo).toBe('bar');

    // Reconciling twice must be as good as once; extend the checks as the reconciler grows.
    const reconciler = new RedisClusterReconciler();
    await reconciler.reconcile({ namespace: 'default', name });
    await reconciler.reconcile({ namespace: 'default', name });

    await objects.delete(name);
  });
});
