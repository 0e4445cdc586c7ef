// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { redisClusterType as hubType } from '../../../../api/cache/v1/rediscluster.client.js';
import { redisClusterType as spokeType } from '../../../../api/cache/v1alpha1/rediscluster.client.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver whose CRD converts through the manager's /convert endpoint
// (test/webhooks/environment.ts installs config/crd/patches pointed at the test's server).
describe('RedisCluster v1alpha1 ⇄ v1 conversion', () => {
  const environment = useWebhookEnvironment();

  it('reads an object written as v1alpha1 as v1, and back unchanged', async () => {
    const { client } = environment();
    const written = await client.create(spokeType, {
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'RedisCluster',
      metadata: { generateName: 'rediscluster-', namespace: 'default' },
      spec: { foo: 'bar' },
    });
    const key = { namespace: 'default', name: written.metadata!.name! };

    const asHub = await client.get(hubType, key);
    expect(asHub.apiVersion).toBe('cache.example.com/v1');
    expect(asHub.spec).toEqual(written.spec);

    const roundTripped = await client.get(spokeType, key);
    expect(roundTripped.apiVersion).toBe('cache.example.com/v1alpha1');
    expect(roundTripped.spec).toEqual(written.spec);
    expect(roundTripped.metadata?.uid).toBe(written.metadata?.uid);
  });
});
