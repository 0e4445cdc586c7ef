// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Manager } from 'kop/runtime';
import { RedisClusterDefaulter as RedisClusterV1Defaulter } from './cache/v1/rediscluster.defaulter.js';
import { RedisClusterValidator as RedisClusterV1Validator } from './cache/v1/rediscluster.validator.js';
import { setupRedisClusterV1alpha1Conversion } from './cache/v1alpha1/rediscluster.conversion.js';
// +kop:scaffold:imports

/**
 * Registers every admission and conversion webhook of the project with the manager, which
 * serves them over HTTPS (port 9443 by default). src/main.ts and the webhook tests both call
 * it, so a test serves exactly the webhooks a deployment does. `kop create webhook` adds lines here.
 */
export function setupWebhooks(manager: Manager): void {
  void manager;
  new RedisClusterV1Defaulter().setupWithManager(manager);
  new RedisClusterV1Validator().setupWithManager(manager);
  setupRedisClusterV1alpha1Conversion(manager);
  // +kop:scaffold:webhooks
}
