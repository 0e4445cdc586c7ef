// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import {
  FieldError,
  ValidationError,
  type AdmissionContext,
  type AdmissionWarnings,
  type Manager,
  type Validator,
} from 'kop/runtime';
import { barType } from '../../../../api/fiz/v1/bar.client.js';
import type { Bar } from '../../../../api/fiz/v1/bar.types.js';

// The apiserver calls this webhook on every create and update of a Bar v1, after
// defaulting; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/validate-fiz-example-com-v1-bar,mutating=false,failurePolicy=fail,sideEffects=None,groups=fiz.example.com,resources=bars,verbs=create;update,versions=v1,name=vfiz-bar-v1.kb.io,admissionReviewVersions=v1

/**
 * Refuses Bar objects the CRD's schema cannot rule out (rules that need code, or other
 * objects). Throw a ValidationError listing every bad field to refuse; return warnings
 * (strings kubectl prints) to accept with a caution. Prefer schema markers and CEL
 * (`+kubebuilder:validation:XValidation`) for checks of one object: they need no webhook.
 */
export class BarValidator implements Validator<Bar> {
  /** Registers the webhook: the manager serves it on /validate-fiz-example-com-v1-bar. */
  setupWithManager(manager: Manager): void {
    manager.webhook(barType).withValidator(this).complete();
  }

  validateCreate(object: Bar, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating create', { name: object.metadata?.name });
    return validateBar(object);
  }

  validateUpdate(oldObject: Bar, newObject: Bar, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating update', { name: newObject.metadata?.name });
    return validateBar(newObject);
  }

  // Not called unless the marker's verbs include delete.
  validateDelete(object: Bar, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating delete', { name: object.metadata?.name });
  }
}

/** The checks every create and update passes; an example rule to replace with your own. */
function validateBar(object: Bar): AdmissionWarnings {
  const errors: FieldError[] = [];
  if (object.spec.foo === '') errors.push(FieldError.invalid('spec.foo', object.spec.foo, 'must not be empty'));
  if (errors.length > 0) throw new ValidationError(errors);
}
