// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkConversionRoundTrip } from 'kop/testing';
import { describe, expect, it } from 'vitest';
import { redisClusterType as hubType } from '../../../../api/cache/v1/rediscluster.client.js';
import { redisClusterType as spokeType } from '../../../../api/cache/v1alpha1/rediscluster.client.js';
import { convertFrom, convertTo } from '../../../../src/webhooks/cache/v1alpha1/rediscluster.conversion.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

// No control plane: objects generated from the CRD's own schema (config/crd/bases, written by
// `kop generate`) go v1alpha1 → v1 → v1alpha1 and v1 → v1alpha1 → v1 and must
// come back unchanged, pruned ones (any field missing, as server-side apply sends) included. A
// failure names the path that was lost and the smallest object that shows it; the seed is fixed,
// so a run repeats the last one.
describe('RedisCluster v1alpha1 ⇄ v1 round trip', () => {
  it('gives back every object both ways', async () => {
    await checkConversionRoundTrip({
      crd: join(projectRoot, 'config', 'crd', 'bases'),
      hub: hubType,
      spoke: spokeType,
      conversion: { convertTo, convertFrom },
      runs: 200,
    });
  });

  it('converts a pruned object with no spec and no metadata', () => {
    expect(convertTo({ apiVersion: 'cache.example.com/v1alpha1', kind: 'RedisCluster' })).toMatchObject({
      apiVersion: 'cache.example.com/v1',
      kind: 'RedisCluster',
    });
    expect(convertFrom({ apiVersion: 'cache.example.com/v1', kind: 'RedisCluster' })).toMatchObject({
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'RedisCluster',
    });
  });
});
