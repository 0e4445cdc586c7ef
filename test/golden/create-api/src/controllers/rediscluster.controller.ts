// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { API_VERSION } from '../../api/cache/v1alpha1/groupversion.js';

// What the manager may do with redisclusters; `kop generate manifests` writes these rules to
// config/rbac/role.yaml. Add a rule for every other kind the reconciler reads or writes.
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters/finalizers,verbs=update

/** The object a reconcile is about: a name, never a snapshot, so each reconcile reads fresh state. */
export interface ReconcileRequest {
  namespace: string;
  name: string;
}

/**
 * Reconciles RedisCluster objects: makes what the cluster runs match each RedisCluster's spec and
 * reports what it found in the RedisCluster's status conditions.
 *
 * src/main.ts creates this reconciler. Nothing calls `reconcile` yet: calling it whenever
 * a RedisCluster changes needs a watch on redisclusters, which this scaffold does not set up.
 */
export class RedisClusterReconciler {
  /** The kind this reconciler is responsible for. */
  readonly kind = 'RedisCluster';
  /** Its API version, from groupversion.ts. */
  readonly apiVersion = API_VERSION;

  /**
   * Brings one RedisCluster in line with its spec. It must be safe to call any number of times:
   * read the RedisCluster named by `request` (gone means deleted: what it owns goes with it
   * through owner references), compare what exists with what its spec asks for, create or
   * update the difference, then record the outcome in `status.conditions`. Throw to retry.
   */
  async reconcile(request: ReconcileRequest): Promise<void> {
    void request;
  }
}
