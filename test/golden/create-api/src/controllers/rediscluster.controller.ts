// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import {
  finalizer,
  isNotFound,
  setCondition,
  type Client,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
  type Request,
} from 'kop/runtime';
import { redisClusterType } from '../../api/cache/v1alpha1/rediscluster.client.js';
import type { RedisCluster } from '../../api/cache/v1alpha1/rediscluster.types.js';

// What the manager may do; `kop generate manifests` writes these rules to config/rbac/role.yaml.
// Add a rule for every other kind the reconciler reads or writes (and `.owns()` it below).
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

/**
 * Reconciles RedisCluster objects: makes what the cluster runs match each RedisCluster's spec and
 * reports the outcome in its status (a `Ready` condition with the generation it saw).
 */
export class RedisClusterReconciler {
  /** Held on every RedisCluster until its cleanup ran, so deleting one always goes through `cleanup`. */
  static readonly finalizer = 'cache.example.com/finalizer';

  /**
   * Registers the controller: every change to a RedisCluster queues a reconcile of it. Chain
   * `.owns(type)` for each kind it creates; `.owns(coreV1ConfigMapType, { metadataOnly: true })`
   * caches only the metadata of a kind the reconciler needs to notice but never reads whole.
   */
  setupWithManager(manager: Manager): void {
    manager.controller('rediscluster').for(redisClusterType).complete(this);
  }

  /**
   * Brings one RedisCluster in line with its spec. It must be safe to call any number of times:
   * compare what exists with what the spec asks for, create or update the difference, then
   * record the outcome. Throw to retry with backoff; return `{ requeueAfter: ms }` to look again later.
   * The request names the object; `client` reads it from the manager's cache and writes to the apiserver.
   */
  async reconcile(request: Request, { client, logger }: ReconcileContext): Promise<ReconcileResult> {
    let object: RedisCluster;
    try {
      object = await client.get(redisClusterType, request);
    } catch (error) {
      // Deleted meanwhile: what it owned goes with it through owner references.
      if (isNotFound(error)) return;
      throw error;
    }
    return finalizer(client, redisClusterType, object, RedisClusterReconciler.finalizer, {
      apply: (current) => this.apply(client, current),
      cleanup: async (current) => {
        await this.cleanup(current);
        logger.info('finalized');
      },
    });
  }

  /** The work for a live RedisCluster, which carries the finalizer by now. */
  private async apply(client: Client, object: RedisCluster): Promise<ReconcileResult> {
    // Create or update what this RedisCluster asks for here, e.g. with createOrUpdate() and
    // setControllerReference() from kop/runtime, then describe the outcome below.

    const generation = object.metadata?.generation;
    const conditions = (object.status?.conditions ?? []).map((condition) => ({ ...condition }));
    const changed = setCondition(conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      message: `RedisCluster is reconciled at generation ${generation ?? 0}`,
      observedGeneration: generation,
    });
    if (changed) {
      // Through the status subresource; the resourceVersion of the read guards against lost
      // updates (a conflict throws, and the retry reads again).
      await client.status().update(redisClusterType, { ...object, status: { ...object.status, conditions } });
    }
  }

  /** Cleans up what a deleted RedisCluster leaves outside the cluster (objects it owns are garbage-collected). */
  private async cleanup(object: RedisCluster): Promise<void> {
    void object;
  }
}
