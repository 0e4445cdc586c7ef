// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { AdmissionContext, Defaulter, Manager } from 'kop/runtime';
import { barType } from '../../../../api/foo/v1/bar.client.js';
import type { Bar } from '../../../../api/foo/v1/bar.types.js';

// The apiserver calls this webhook on every create and update of a Bar v1, before
// validation; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/mutate-foo-example-com-v1-bar,mutating=true,failurePolicy=fail,sideEffects=None,groups=foo.example.com,resources=bars,verbs=create;update,versions=v1,name=mfoo-bar-v1.kb.io,admissionReviewVersions=v1

/**
 * Fills in the fields of a Bar its user left out. Change `object` in place; kop sends the
 * apiserver a JSON patch of the difference. Defaults that never depend on other objects are
 * better declared in the types file (`+kubebuilder:default=`), where the CRD applies them.
 */
export class BarDefaulter implements Defaulter<Bar> {
  /** Registers the webhook: the manager serves it on /mutate-foo-example-com-v1-bar. */
  setupWithManager(manager: Manager): void {
    manager.webhook(barType).withDefaulter(this).complete();
  }

  default(object: Bar, context: AdmissionContext): void {
    context.logger.debug('defaulting', { name: object.metadata?.name });
    // An example default: replace it with the defaults of a Bar.
    object.spec.foo ??= 'default';
  }
}
