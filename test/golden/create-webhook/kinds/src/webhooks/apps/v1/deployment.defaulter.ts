// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { AdmissionContext, Defaulter, Manager } from 'kop/runtime';
import { appsV1DeploymentType } from 'kop/runtime/builtin';
import type { Deployment } from 'kop/api';

// The apiserver calls this webhook on every create and update of a Deployment v1, before
// validation; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/mutate-apps-v1-deployment,mutating=true,failurePolicy=fail,sideEffects=None,groups=apps,resources=deployments,verbs=create;update,versions=v1,name=mdeployment-v1.kb.io,admissionReviewVersions=v1

/**
 * Fills in the fields of a Deployment its user left out. Change `object` in place; kop sends the
 * apiserver a JSON patch of the difference. Defaults that never depend on other objects are
 * better declared in the types file (`+kubebuilder:default=`), where the CRD applies them.
 */
export class DeploymentDefaulter implements Defaulter<Deployment> {
  /** Registers the webhook: the manager serves it on /mutate-apps-v1-deployment. */
  setupWithManager(manager: Manager): void {
    manager.webhook(appsV1DeploymentType).withDefaulter(this).complete();
  }

  default(object: Deployment, context: AdmissionContext): void {
    context.logger.debug('defaulting', { name: object.metadata?.name });
    // An example default, a label: replace it with the defaults of a Deployment.
    object.metadata ??= {};
    object.metadata.labels = { 'example.com/defaulted': 'true', ...object.metadata.labels };
  }
}
