// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../../api/cache/v1/groupversion.js';
import { redisClusterType } from '../../../../api/cache/v1/rediscluster.client.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('RedisClusterValidator', () => {
  const environment = useWebhookEnvironment();

  it('admits a valid RedisCluster', async () => {
    const created = await environment().client.create(redisClusterType, {
      apiVersion: API_VERSION,
      kind: 'RedisCluster',
      metadata: { generateName: 'rediscluster-', namespace: 'default' },
      spec: { foo: 'bar' },
    });
    expect(created.metadata?.uid).toBeTruthy();
  });

  it('refuses an invalid RedisCluster with the validator’s message', async () => {
    const attempt = environment().client.create(redisClusterType, {
      apiVersion: API_VERSION,
      kind: 'RedisCluster',
      metadata: { generateName: 'rediscluster-', namespace: 'default' },
      spec: { foo: '' },
    });
    await expect(attempt).rejects.toThrow(/spec\.foo: Invalid value: "": must not be empty/);
  });
});
