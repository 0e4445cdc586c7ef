// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { AdmissionContext, Defaulter, Manager } from 'kop/runtime';
import { coreV1PodType } from 'kop/runtime/builtin';
import type { Pod } from 'kop/api';

// The apiserver calls this webhook on every create and update of a Pod v1, before
// validation; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create;update,versions=v1,name=mpod-v1.kb.io,admissionReviewVersions=v1

/**
 * Fills in the fields of a Pod its user left out. Change `object` in place; kop sends the
 * apiserver a JSON patch of the difference. Defaults that never depend on other objects are
 * better declared in the types file (`+kubebuilder:default=`), where the CRD applies them.
 */
export class PodDefaulter implements Defaulter<Pod> {
  /** Registers the webhook: the manager serves it on /mutate--v1-pod. */
  setupWithManager(manager: Manager): void {
    manager.webhook(coreV1PodType).withDefaulter(this).complete();
  }

  default(object: Pod, context: AdmissionContext): void {
    context.logger.debug('defaulting', { name: object.metadata?.name });
    // An example default, a label: replace it with the defaults of a Pod.
    object.metadata ??= {};
    object.metadata.labels = { 'example.com/defaulted': 'true', ...object.metadata.labels };
  }
}
