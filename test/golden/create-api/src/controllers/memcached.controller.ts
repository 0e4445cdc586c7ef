// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { API_VERSION } from '../../api/cache/v1alpha1/groupversion.js';

// What the manager may do with memcacheds; `kop generate manifests` writes these rules to
// config/rbac/role.yaml. Add a rule for every other kind the reconciler reads or writes.
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update

/** The object a reconcile is about: a name, never a snapshot, so each reconcile reads fresh state. */
export interface ReconcileRequest {
  namespace: string;
  name: string;
}

/**
 * Reconciles Memcached objects: makes what the cluster runs match each Memcached's spec and
 * reports what it found in the Memcached's status conditions.
 *
 * src/main.ts creates this reconciler. Nothing calls `reconcile` yet: calling it whenever
 * a Memcached changes needs a watch on memcacheds, which this scaffold does not set up.
 */
export class MemcachedReconciler {
  /** The kind this reconciler is responsible for. */
  readonly kind = 'Memcached';
  /** Its API version, from groupversion.ts. */
  readonly apiVersion = API_VERSION;

  /**
   * Brings one Memcached in line with its spec. It must be safe to call any number of times:
   * read the Memcached named by `request` (gone means deleted: what it owns goes with it
   * through owner references), compare what exists with what its spec asks for, create or
   * update the difference, then record the outcome in `status.conditions`. Throw to retry.
   */
  async reconcile(request: ReconcileRequest): Promise<void> {
    void request;
  }
}
