// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { redisClusterType } from '../../../../api/cache/v1/rediscluster.client.js';
import { validRedisCluster } from '../../../fixtures/cache/v1/rediscluster.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('RedisClusterDefaulter', () => {
  const environment = useWebhookEnvironment();

  // validRedisCluster() is the one place that fills in what a valid RedisCluster needs.
  const sample = () => validRedisCluster(environment().namespace);

  it('fills in spec.foo when a RedisCluster is created without it', async () => {
    const object = sample();
    delete object.spec.foo;
    const created = await environment().client.create(redisClusterType, object);
    expect(created.spec.foo).toBe('default');
  });

  it('keeps a value the user set', async () => {
    const object = sample();
    object.spec.foo = 'mine';
    const created = await environment().client.create(redisClusterType, object);
    expect(created.spec.foo).toBe('mine');
  });
});
