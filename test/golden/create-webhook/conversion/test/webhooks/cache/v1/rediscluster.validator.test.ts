// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { redisClusterType } from '../../../../api/cache/v1/rediscluster.client.js';
import { validRedisCluster } from '../../../fixtures/cache/v1/rediscluster.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('RedisClusterValidator', () => {
  const environment = useWebhookEnvironment();

  // validRedisCluster() is the one place that fills in what a valid RedisCluster needs.
  const sample = () => validRedisCluster(environment().namespace);

  it('admits a valid RedisCluster', async () => {
    const created = await environment().client.create(redisClusterType, sample());
    expect(created.metadata?.uid).toBeTruthy();
  });

  it('refuses an invalid RedisCluster with the validator’s message', async () => {
    const object = sample();
    object.spec.foo = '';
    const attempt = environment().client.create(redisClusterType, object);
    await expect(attempt).rejects.toThrow(/spec\.foo: Invalid value: "": must not be empty/);
  });
});
