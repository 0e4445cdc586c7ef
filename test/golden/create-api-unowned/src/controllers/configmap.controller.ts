// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { isNotFound, type Manager, type ReconcileContext, type ReconcileResult, type Request } from 'kop/runtime';
import { coreV1ConfigMapType } from 'kop/runtime/builtin';
import type { ConfigMap } from 'kop/api';

// What the manager may do; `kop generate manifests` writes these rules to config/rbac/role.yaml.
// Keep only the verbs the reconciler needs, and add a rule for every other kind it reads or writes.
// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=core,resources=configmaps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=core,resources=configmaps/finalizers,verbs=update

/**
 * Reconciles v1 ConfigMap objects, a built-in kind of Kubernetes: the reconciler reacts to
 * them without owning their spec or status, so it adds no finalizer and writes no status of its own.
 */
export class ConfigMapReconciler {
  /** Registers the controller under the name its logs and metrics carry: every change to a ConfigMap queues a reconcile of it. */
  setupWithManager(manager: Manager): void {
    manager.controller('configmap').for(coreV1ConfigMapType).complete(this);
  }

  /**
   * Looks at one ConfigMap. It must be safe to call any number of times: compare what exists
   * with what you want for this ConfigMap, create or update the difference (e.g. with
   * createOrUpdate() and setControllerReference() from kop/runtime), and return.
   * Throw to retry with backoff; return `{ requeueAfter: ms }` to look again later.
   */
  async reconcile(request: Request, { client, logger }: ReconcileContext): Promise<ReconcileResult> {
    let object: ConfigMap;
    try {
      // From the manager's cache, which watches every ConfigMap the manager may see.
      object = await client.get(coreV1ConfigMapType, request);
    } catch (error) {
      // Deleted meanwhile: nothing left to look at.
      if (isNotFound(error)) return;
      throw error;
    }
    logger.debug('reconciled', {
      generation: object.metadata?.generation,
      resourceVersion: object.metadata?.resourceVersion,
    });
  }
}
