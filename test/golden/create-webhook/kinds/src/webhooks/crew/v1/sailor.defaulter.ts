// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { AdmissionContext, Defaulter, Manager } from 'kop/runtime';
import { sailorType } from '../../../../api/crew/v1/sailor.client.js';
import type { Sailor } from '../../../../api/crew/v1/sailor.types.js';

// The apiserver calls this webhook on every create and update of a Sailor v1, before
// validation; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// The path is --defaulting-path's: the marker and setupWithManager must name the same one.
// +kubebuilder:webhook:path=/custom-mutate-sailor,mutating=true,failurePolicy=fail,sideEffects=None,groups=crew.example.com,resources=sailors,verbs=create;update,versions=v1,name=msailor-v1.kb.io,admissionReviewVersions=v1

/**
 * Fills in the fields of a Sailor its user left out. Change `object` in place; kop sends the
 * apiserver a JSON patch of the difference. Defaults that never depend on other objects are
 * better declared in the types file (`+kubebuilder:default=`), where the CRD applies them.
 */
export class SailorDefaulter implements Defaulter<Sailor> {
  /** Registers the webhook: the manager serves it on /custom-mutate-sailor. */
  setupWithManager(manager: Manager): void {
    manager.webhook(sailorType).withDefaulter(this).withDefaulterPath('/custom-mutate-sailor').complete();
  }

  default(object: Sailor, context: AdmissionContext): void {
    context.logger.debug('defaulting', { name: object.metadata?.name });
    // An example default: replace it with the defaults of a Sailor.
    object.spec.foo ??= 'default';
  }
}
