// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { isNotFound, type Manager, type ReconcileContext, type ReconcileResult, type Request } from 'kop/runtime';
import { appsV1DeploymentType } from 'kop/runtime/builtin';
import type { Deployment } from 'kop/api';

// What the manager may do; `kop generate manifests` writes these rules to config/rbac/role.yaml.
// Keep only the verbs the reconciler needs, and add a rule for every other kind it reads or writes.
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apps,resources=deployments/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps,resources=deployments/finalizers,verbs=update

/**
 * Reconciles apps/v1 Deployment objects, a built-in kind of Kubernetes: the reconciler reacts to
 * them without owning their spec or status, so it adds no finalizer and writes no status of its own.
 */
export class DeploymentReconciler {
  /** Registers the controller under the name its logs and metrics carry: every change to a Deployment queues a reconcile of it. */
  setupWithManager(manager: Manager): void {
    manager.controller('deployment').for(appsV1DeploymentType).complete(this);
  }

  /**
   * Looks at one Deployment. It must be safe to call any number of times: compare what exists
   * with what you want for this Deployment, create or update the difference (e.g. with
   * createOrUpdate() and setControllerReference() from kop/runtime), and return.
   * Throw to retry with backoff; return `{ requeueAfter: ms }` to look again later.
   */
  async reconcile(request: Request, { client, logger }: ReconcileContext): Promise<ReconcileResult> {
    let object: Deployment;
    try {
      // From the manager's cache, which watches every Deployment the manager may see.
      object = await client.get(appsV1DeploymentType, request);
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
