// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { AdmissionContext, Defaulter, Manager } from 'kop/runtime';
import { issuerType } from '../../../../api/cert-manager/v1/issuer.client.js';
import type { Issuer } from '../../../../api/cert-manager/v1/issuer.types.js';

// The apiserver calls this webhook on every create and update of a Issuer v1, before
// validation; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/mutate-cert-manager-io-v1-issuer,mutating=true,failurePolicy=fail,sideEffects=None,groups=cert-manager.io,resources=issuers,verbs=create;update,versions=v1,name=missuer-v1.kb.io,admissionReviewVersions=v1

/**
 * Fills in the fields of a Issuer its user left out. Change `object` in place; kop sends the
 * apiserver a JSON patch of the difference. Defaults that never depend on other objects are
 * better declared in the types file (`+kubebuilder:default=`), where the CRD applies them.
 */
export class IssuerDefaulter implements Defaulter<Issuer> {
  /** Registers the webhook: the manager serves it on /mutate-cert-manager-io-v1-issuer. */
  setupWithManager(manager: Manager): void {
    manager.webhook(issuerType).withDefaulter(this).complete();
  }

  default(object: Issuer, context: AdmissionContext): void {
    context.logger.debug('defaulting', { name: object.metadata?.name });
    // An example default, a label: replace it with the defaults of a Issuer.
    object.metadata ??= {};
    object.metadata.labels = { 'example.com/defaulted': 'true', ...object.metadata.labels };
  }
}
