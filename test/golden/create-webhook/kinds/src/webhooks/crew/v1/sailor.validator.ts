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
import { sailorType } from '../../../../api/crew/v1/sailor.client.js';
import type { Sailor } from '../../../../api/crew/v1/sailor.types.js';

// The apiserver calls this webhook on every create and update of a Sailor v1, after
// defaulting; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// The path is --validation-path's: the marker and setupWithManager must name the same one.
// +kubebuilder:webhook:path=/custom-validate-sailor,mutating=false,failurePolicy=fail,sideEffects=None,groups=crew.example.com,resources=sailors,verbs=create;update,versions=v1,name=vsailor-v1.kb.io,admissionReviewVersions=v1

/**
 * Refuses Sailor objects the CRD's schema cannot rule out (rules that need code, or other
 * objects). Throw a ValidationError listing every bad field to refuse; return warnings
 * (strings kubectl prints) to accept with a caution. Prefer schema markers and CEL
 * (`+kubebuilder:validation:XValidation`) for checks of one object: they need no webhook.
 */
export class SailorValidator implements Validator<Sailor> {
  /** Registers the webhook: the manager serves it on /custom-validate-sailor. */
  setupWithManager(manager: Manager): void {
    manager.webhook(sailorType).withValidator(this).withValidatorPath('/custom-validate-sailor').complete();
  }

  validateCreate(object: Sailor, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating create', { name: object.metadata?.name });
    return validateSailor(object);
  }

  validateUpdate(oldObject: Sailor, newObject: Sailor, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating update', { name: newObject.metadata?.name });
    return validateSailor(newObject);
  }

  // Not called unless the marker's verbs include delete.
  validateDelete(object: Sailor, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating delete', { name: object.metadata?.name });
  }
}

/** The checks every create and update passes; an example rule to replace with your own. */
function validateSailor(object: Sailor): AdmissionWarnings {
  const errors: FieldError[] = [];
  if (object.spec.foo === '') errors.push(FieldError.invalid('spec.foo', object.spec.foo, 'must not be empty'));
  if (errors.length > 0) throw new ValidationError(errors);
}
