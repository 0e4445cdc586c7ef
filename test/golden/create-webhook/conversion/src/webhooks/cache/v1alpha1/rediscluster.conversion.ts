// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Manager } from 'kop/runtime';
import { redisClusterType as hubType } from '../../../../api/cache/v1/rediscluster.client.js';
import type { RedisCluster as Hub } from '../../../../api/cache/v1/rediscluster.types.js';
import { redisClusterType as spokeType } from '../../../../api/cache/v1alpha1/rediscluster.client.js';
import type { RedisCluster as Spoke } from '../../../../api/cache/v1alpha1/rediscluster.types.js';

// Conversion between RedisCluster v1alpha1 (this spoke) and v1 (the hub, the version etcd
// stores): the apiserver calls the manager's /convert endpoint whenever a client reads or writes
// v1alpha1. Every spoke converts to and from the hub only, so n versions need 2(n-1) functions.
// Each must keep every field: an object written as v1alpha1, stored as v1 and read back
// as v1alpha1 must be unchanged (store what the hub has no field for in an annotation).

const HUB_API_VERSION = 'cache.example.com/v1';
const SPOKE_API_VERSION = 'cache.example.com/v1alpha1';

/** v1alpha1 → v1. Fields that mean the same in both versions carry over; map the others here. */
export function convertTo(spoke: Spoke): Hub {
  return { ...spoke, apiVersion: HUB_API_VERSION };
}

/** v1 → v1alpha1. The inverse of convertTo. */
export function convertFrom(hub: Hub): Spoke {
  return { ...hub, apiVersion: SPOKE_API_VERSION };
}

/** Registers the conversion: the manager serves it on /convert. */
export function setupRedisClusterV1alpha1Conversion(manager: Manager): void {
  manager.conversion(hubType).spoke(spokeType, { convertTo, convertFrom }).complete();
}
