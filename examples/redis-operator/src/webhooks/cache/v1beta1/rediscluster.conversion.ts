import type { Manager } from 'kop/runtime';
import { redisClusterType as hubType } from '../../../../api/cache/v1alpha1/rediscluster.client.js';
import type { RedisCluster as Hub } from '../../../../api/cache/v1alpha1/rediscluster.types.js';
import { redisClusterType as spokeType } from '../../../../api/cache/v1beta1/rediscluster.client.js';
import type { RedisCluster as Spoke } from '../../../../api/cache/v1beta1/rediscluster.types.js';

// v1beta1 (spoke) ⇄ v1alpha1 (hub, the stored version): `size` is v1alpha1's `replicas`, and
// `redis.image` its `image`. Every field has a place in both versions, so nothing is lost.

/** v1beta1 → v1alpha1. */
export function convertTo(spoke: Spoke): Hub {
  const { size, redis } = spoke.spec;
  return {
    ...spoke,
    apiVersion: 'cache.example.com/v1alpha1',
    spec: { replicas: size, ...(redis?.image !== undefined ? { image: redis.image } : {}) },
  };
}

/** v1alpha1 → v1beta1. */
export function convertFrom(hub: Hub): Spoke {
  const { replicas, image } = hub.spec;
  return {
    ...hub,
    apiVersion: 'cache.example.com/v1beta1',
    spec: { size: replicas, ...(image !== undefined ? { redis: { image } } : {}) },
  };
}

export function setupRedisClusterV1beta1Conversion(manager: Manager): void {
  manager.conversion(hubType).spoke(spokeType, { convertTo, convertFrom }).complete();
}
