// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import {
  addFinalizer,
  hasFinalizer,
  isBeingDeleted,
  isNotFound,
  removeFinalizer,
  ResourceClient,
  setCondition,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
  type Request,
  type ResourceType,
  type RestClient,
} from 'kop/runtime';
import { API_VERSION, GROUP, VERSION } from '../../api/cache/v1alpha1/groupversion.js';
import type { Memcached } from '../../api/cache/v1alpha1/memcached.types.js';

// What the manager may do; `kop generate manifests` writes these rules to config/rbac/role.yaml.
// Add a rule for every other kind the reconciler reads or writes (and `.owns()` it below).
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

/** The object a reconcile is about: a name, never a snapshot, so each reconcile reads fresh state. */
export type ReconcileRequest = Request;

/**
 * Reconciles Memcached objects: makes what the cluster runs match each Memcached's spec and
 * reports the outcome in its status (a `Ready` condition with the generation it saw).
 */
export class MemcachedReconciler {
  /** The kind this reconciler is responsible for. */
  readonly kind = 'Memcached';
  /** Its API version, from groupversion.ts. */
  readonly apiVersion = API_VERSION;
  /** Where memcacheds are served. */
  static readonly resource: ResourceType = { group: GROUP, version: VERSION, resource: 'memcacheds', kind: 'Memcached', namespaced: true };
  /** Held on every Memcached until its cleanup ran, so deleting one always goes through `finalize`. */
  static readonly finalizer = 'cache.example.com/finalizer';

  constructor(private readonly rest: RestClient) {}

  /** Registers the controller: every change to a Memcached queues a reconcile of it. */
  setupWithManager(manager: Manager): void {
    manager.controller('memcached').for(MemcachedReconciler.resource).complete(this);
  }

  /**
   * Brings one Memcached in line with its spec. It must be safe to call any number of times:
   * compare what exists with what the spec asks for, create or update the difference, then
   * record the outcome. Throw to retry with backoff; return `{ requeueAfter: ms }` to look again later.
   */
  async reconcile(request: ReconcileRequest, context?: ReconcileContext): Promise<ReconcileResult> {
    const objects = new ResourceClient<Memcached>(this.rest, MemcachedReconciler.resource, request.namespace);
    let object: Memcached;
    try {
      object = await objects.get(request.name);
    } catch (error) {
      // Deleted meanwhile: what it owned goes with it through owner references.
      if (isNotFound(error)) return;
      throw error;
    }

    if (isBeingDeleted(object)) {
      if (hasFinalizer(object, MemcachedReconciler.finalizer)) {
        await this.finalize(object);
        await removeFinalizer(objects, object, MemcachedReconciler.finalizer);
        context?.logger.info('finalized');
      }
      return;
    }
    object = await addFinalizer(objects, object, MemcachedReconciler.finalizer);

    // The work: create or update what this Memcached asks for here, e.g. with createOrUpdate()
    // and setControllerReference() from kop/runtime, then describe the outcome below.

    const generation = object.metadata?.generation;
    const conditions = (object.status?.conditions ?? []).map((condition) => ({ ...condition }));
    const changed = setCondition(conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      message: `Memcached is reconciled at generation ${generation ?? 0}`,
      observedGeneration: generation,
    });
    if (changed) {
      // Through the status subresource; the resourceVersion of the read guards against lost
      // updates (a conflict throws, and the retry reads again).
      await objects.updateStatus({ ...object, status: { ...object.status, conditions } });
    }
  }

  /** Cleans up what a deleted Memcached leaves outside the cluster (objects it owns are garbage-collected). */
  private async finalize(object: Memcached): Promise<void> {
    void object;
  }
}
