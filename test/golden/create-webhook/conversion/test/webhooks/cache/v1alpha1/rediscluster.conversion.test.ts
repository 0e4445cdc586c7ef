// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleCustomResource } from 'kop/testing';
import { describe, expect, it } from 'vitest';
import { redisClusterType as hubType } from '../../../../api/cache/v1/rediscluster.client.js';
import { redisClusterType as spokeType } from '../../../../api/cache/v1alpha1/rediscluster.client.js';
import type { RedisCluster as Spoke } from '../../../../api/cache/v1alpha1/rediscluster.types.js';
import { useWebhookEnvironment } from '../../environment.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/**
 * The v1alpha1 object the test writes. It is generated from the CRD's schema, so it is valid
 * whatever fields RedisCluster requires; where the schema says too little (a CEL rule), write a
 * valid object here instead.
 */
function sample(): Spoke {
  const { metadata: _generated, ...object } = sampleCustomResource(spokeType, {
    crd: join(projectRoot, 'config', 'crd', 'bases'),
  });
  return { ...object, metadata: { generateName: 'rediscluster-', namespace: 'default' } };
}

// Through a real apiserver whose CRD converts through the manager's /convert endpoint
// (test/webhooks/environment.ts installs config/crd/patches pointed at the test's server).
// test/conversions/ checks both directions on many generated objects without one.
describe('RedisCluster v1alpha1 ⇄ v1 conversion', () => {
  const environment = useWebhookEnvironment();

  it('reads an object written as v1alpha1 as v1, and back unchanged', async () => {
    const { client } = environment();
    const written = await client.create(spokeType, sample());
    const key = { namespace: 'default', name: written.metadata!.name! };

    const asHub = await client.get(hubType, key);
    expect(asHub.apiVersion).toBe('cache.example.com/v1');

    const roundTripped = await client.get(spokeType, key);
    expect(roundTripped.apiVersion).toBe('cache.example.com/v1alpha1');
    expect(roundTripped.spec).toEqual(written.spec);
    expect(roundTripped.metadata?.uid).toBe(written.metadata?.uid);
  });
});
