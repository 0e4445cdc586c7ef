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
import { barType } from '../../../api/fiz/v1/bar.client.js';
import type { Bar } from '../../../api/fiz/v1/bar.types.js';

// What the manager may do; `kop generate manifests` writes these rules to config/rbac/role.yaml.
// Add a rule for every other kind the reconciler reads or writes (and `.owns()` it below).
// +kubebuilder:rbac:groups=fiz.example.com,resources=bars,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=fiz.example.com,resources=bars/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=fiz.example.com,resources=bars/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

/**
 * Reconciles Bar objects: makes what the cluster runs match each Bar's spec and
 * reports the outcome in its status (a `Ready` condition with the generation it saw).
 */
export class BarReconciler {
  /** Held on every Bar until its cleanup ran, so deleting one always goes through `cleanup`. */
  static readonly finalizer = 'fiz.example.com/finalizer';

  /**
   * Registers the controller: every change to a Bar queues a reconcile of it. Chain
   * `.owns(type)` for each kind it creates; `.owns(coreV1ConfigMapType, { metadataOnly: true })`
   * caches only the metadata of a kind the reconciler needs to notice but never reads whole.
   */
  setupWithManager(manager: Manager): void {
    manager.controller('fiz-bar').for(barType).complete(this);
  }

  /**
   * Brings one Bar in line with its spec. It must be safe to call any number of times:
   * compare what exists with what the spec asks for, create or update the difference, then
   * record the outcome. Throw to retry with backoff; return `{ requeueAfter: ms }` to look again later.
   * The request names the object; `client` reads it from the manager's cache and writes to the apiserver.
   */
  async reconcile(request: Request, { client, logger }: ReconcileContext): Promise<ReconcileResult> {
    let object: Bar;
    try {
      object = await client.get(barType, request);
    } catch (error) {
      // Deleted meanwhile: what it owned goes with it through owner references.
      if (isNotFound(error)) return;
      throw error;
    }
    return finalizer(client, barType, object, BarReconciler.finalizer, {
      apply: (current) => this.apply(client, current),
      cleanup: async (current) => {
        await this.cleanup(current);
        logger.info('finalized');
      },
    });
  }

  /** The work for a live Bar, which carries the finalizer by now. */
  private async apply(client: Client, object: Bar): Promise<ReconcileResult> {
    // Create or update what this Bar asks for here, e.g. with createOrUpdate() and
    // setControllerReference() from kop/runtime, then describe the outcome below.

    const generation = object.metadata?.generation;
    const conditions = (object.status?.conditions ?? []).map((condition) => ({ ...condition }));
    const changed = setCondition(conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      message: `Bar is reconciled at generation ${generation ?? 0}`,
      observedGeneration: generation,
    });
    if (changed) {
      // Through the status subresource; the resourceVersion of the read guards against lost
      // updates (a conflict throws, and the retry reads again).
      await client.status().update(barType, { ...object, status: { ...object.status, conditions } });
    }
  }

  /** Cleans up what a deleted Bar leaves outside the cluster (objects it owns are garbage-collected). */
  private async cleanup(object: Bar): Promise<void> {
    void object;
  }
}
