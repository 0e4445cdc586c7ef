// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Container, Deployment, DeploymentSpec, PodSpec } from 'kop/api';
import {
  createOrUpdate,
  finalizer,
  isNotFound,
  setCondition,
  setControllerReference,
  type Client,
  type EventRecorder,
  type Logger,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
  type Request,
} from 'kop/runtime';
import { appsV1DeploymentType } from 'kop/runtime/builtin';
import { busyboxType } from '../../api/example.com/v1alpha1/busybox.client.js';
import type { Busybox } from '../../api/example.com/v1alpha1/busybox.types.js';

// What the manager may do; `kop generate manifests` writes these rules to config/rbac/role.yaml.
// +kubebuilder:rbac:groups=example.com.example.com,resources=busyboxes,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=example.com.example.com,resources=busyboxes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=example.com.example.com,resources=busyboxes/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch

/** The environment variable that names the image (config/manager/manager.yaml sets it). */
export const BUSYBOX_IMAGE = 'BUSYBOX_IMAGE';
/** The image a Busybox runs when BUSYBOX_IMAGE is not set: the one it was scaffolded with. */
export const DEFAULT_BUSYBOX_IMAGE = 'busybox:1.36.1';

/** The image every Busybox's Deployment runs: BUSYBOX_IMAGE, else DEFAULT_BUSYBOX_IMAGE. */
export function busyboxImage(): string {
  return process.env[BUSYBOX_IMAGE] || DEFAULT_BUSYBOX_IMAGE;
}

/** The container's name in the Deployment's pods. */
const CONTAINER = 'busybox';

/**
 * Reconciles Busybox objects: each runs busybox:1.36.1 as a Deployment of the same name, owned by
 * it, with spec.size replicas and the restricted Pod Security Standard; the Deployment's state
 * is reported in the Busybox's conditions (Available, Progressing, Degraded). Deleting a Busybox
 * goes through a finalizer that reports Degraded and records an event first.
 */
export class BusyboxReconciler {
  /** Held on every Busybox until its cleanup ran. */
  static readonly finalizer = 'example.com.example.com/finalizer';

  /** Registers the controller: a change to a Busybox, or to a Deployment it owns, queues a reconcile of the Busybox. */
  setupWithManager(manager: Manager): void {
    manager.controller('busybox').for(busyboxType).owns(appsV1DeploymentType).complete(this);
  }

  async reconcile(request: Request, { client, recorder, logger }: ReconcileContext): Promise<ReconcileResult> {
    let object: Busybox;
    try {
      object = await client.get(busyboxType, request);
    } catch (error) {
      // Deleted meanwhile: its Deployment goes with it through the owner reference.
      if (isNotFound(error)) return;
      throw error;
    }
    if ((object.status?.conditions ?? []).length === 0) {
      object = await this.report(client, object, [
        { type: 'Available', status: 'Unknown', reason: 'Reconciling', message: 'Starting reconciliation' },
      ]);
    }
    return finalizer(client, busyboxType, object, BusyboxReconciler.finalizer, {
      apply: (current) => this.apply(client, current, logger),
      cleanup: (current) => this.cleanup(client, current, recorder, logger),
    });
  }

  /** Creates or updates the Deployment, then reports its state. */
  private async apply(client: Client, object: Busybox, logger: Logger): Promise<ReconcileResult> {
    const size = object.spec.size ?? 1;
    let deployment: Deployment;
    try {
      const result = await createOrUpdate(
        client,
        appsV1DeploymentType,
        { namespace: object.metadata!.namespace!, name: object.metadata!.name! },
        (current) => this.desiredDeployment(object, current, size),
      );
      deployment = result.object;
      if (result.operation !== 'unchanged') logger.info(`deployment ${result.operation}`, { replicas: size });
    } catch (error) {
      const message = `cannot create or update Deployment ${object.metadata!.name!}: ${(error as Error).message}`;
      await this.report(client, object, [
        { type: 'Available', status: 'False', reason: 'DeploymentFailed', message },
        { type: 'Degraded', status: 'True', reason: 'DeploymentFailed', message },
      ]);
      throw error;
    }

    const status = deployment.status ?? {};
    const observed = (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 1);
    const available = status.availableReplicas ?? 0;
    const rolledOut =
      observed && (status.replicas ?? 0) === size && (status.updatedReplicas ?? 0) === size && available === size;
    await this.report(client, object, [
      rolledOut
        ? {
            type: 'Available',
            status: 'True',
            reason: 'DeploymentAvailable',
            message: `Deployment ${deployment.metadata!.name!} runs ${size} of ${size} replicas`,
          }
        : {
            type: 'Available',
            status: 'False',
            reason: 'DeploymentUnavailable',
            message: `Deployment ${deployment.metadata!.name!} has ${available} of ${size} replicas available`,
          },
      rolledOut
        ? {
            type: 'Progressing',
            status: 'False',
            reason: 'DeploymentComplete',
            message: `Deployment ${deployment.metadata!.name!} rolled out ${size} replicas`,
          }
        : {
            type: 'Progressing',
            status: 'True',
            reason: 'DeploymentProgressing',
            message: `Deployment ${deployment.metadata!.name!} is rolling out ${size} replicas`,
          },
      {
        type: 'Degraded',
        status: 'False',
        reason: 'Reconciled',
        message: `Deployment ${deployment.metadata!.name!} matches the spec`,
      },
    ]);
  }

  /**
   * Sets the fields of the Deployment this controller owns, leaving the rest (defaults the
   * apiserver filled in, other containers) as they are, so an unchanged Busybox writes nothing.
   */
  private desiredDeployment(owner: Busybox, deployment: Deployment, size: number): void {
    // The selector cannot change after creation; the owner's uid keeps two busyboxes apart.
    const selector = {
      'app.kubernetes.io/name': 'demo',
      'app.kubernetes.io/component': 'busybox',
      'example.com.example.com/owner-uid': owner.metadata!.uid!,
    };
    const spec: DeploymentSpec = (deployment.spec ??= { selector: { matchLabels: selector }, template: {} });
    spec.replicas = size;
    const template = spec.template;
    template.metadata = {
      ...template.metadata,
      labels: {
        ...template.metadata?.labels,
        ...spec.selector.matchLabels,
        'app.kubernetes.io/managed-by': 'busybox-controller',
      },
    };
    const pod: PodSpec = (template.spec ??= { containers: [] });
    // The restricted Pod Security Standard (https://kubernetes.io/docs/concepts/security/pod-security-standards/).
    pod.securityContext = { ...pod.securityContext, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
    const existing = pod.containers.find((container) => container.name === CONTAINER);
    const container: Container = {
      ...existing,
      name: CONTAINER,
      image: busyboxImage(),
      imagePullPolicy: 'IfNotPresent',
      securityContext: {
        ...existing?.securityContext,
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      },
    };
    pod.containers = [container, ...pod.containers.filter((other) => other.name !== CONTAINER)];
    setControllerReference(owner, deployment);
  }

  /** A deleted Busybox: report Degraded and record an event; its Deployment is garbage-collected. */
  private async cleanup(
    client: Client,
    object: Busybox,
    recorder: EventRecorder,
    logger: Logger,
  ): Promise<ReconcileResult> {
    const current = await this.report(client, object, [
      {
        type: 'Degraded',
        status: 'Unknown',
        reason: 'Finalizing',
        message: `Performing finalizer operations for ${object.metadata!.name!}`,
      },
    ]);
    // Add what must happen before the Busybox goes here (backups, releasing outside resources).
    await recorder.warning(
      current,
      'Deleting',
      `Busybox ${object.metadata!.name!} is being deleted from the namespace ${object.metadata!.namespace!}`,
      'Finalize',
    );
    await this.report(client, current, [
      {
        type: 'Degraded',
        status: 'True',
        reason: 'Finalizing',
        message: `Finalizer operations for ${object.metadata!.name!} were successfully accomplished`,
      },
    ]);
    logger.info('finalized');
  }

  /** Sets conditions through the status subresource (only when one changed); returns the object as written. */
  private async report(
    client: Client,
    object: Busybox,
    conditions: { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string }[],
  ): Promise<Busybox> {
    const next = (object.status?.conditions ?? []).map((condition) => ({ ...condition }));
    let changed = false;
    for (const condition of conditions) {
      changed = setCondition(next, { ...condition, observedGeneration: object.metadata?.generation }) || changed;
    }
    if (!changed) return object;
    // The resourceVersion of the read guards against lost updates: a conflict throws and the retry reads again.
    return client.status().update(busyboxType, { ...object, status: { ...object.status, conditions: next } });
  }
}
