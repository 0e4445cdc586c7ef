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
import { appsV1DeploymentType } from 'kop/runtime/builtin';
import type { Deployment } from 'kop/api';

// The apiserver calls this webhook on every create and update of a Deployment v1, after
// defaulting; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/validate-apps-v1-deployment,mutating=false,failurePolicy=fail,sideEffects=None,groups=apps,resources=deployments,verbs=create;update,versions=v1,name=vdeployment-v1.kb.io,admissionReviewVersions=v1

/**
 * Refuses Deployment objects the CRD's schema cannot rule out (rules that need code, or other
 * objects). Throw a ValidationError listing every bad field to refuse; return warnings
 * (strings kubectl prints) to accept with a caution. Prefer schema markers and CEL
 * (`+kubebuilder:validation:XValidation`) for checks of one object: they need no webhook.
 */
export class DeploymentValidator implements Validator<Deployment> {
  /** Registers the webhook: the manager serves it on /validate-apps-v1-deployment. */
  setupWithManager(manager: Manager): void {
    manager.webhook(appsV1DeploymentType).withValidator(this).complete();
  }

  validateCreate(object: Deployment, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating create', { name: object.metadata?.name });
    return validateDeployment(object);
  }

  validateUpdate(oldObject: Deployment, newObject: Deployment, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating update', { name: newObject.metadata?.name });
    return validateDeployment(newObject);
  }

  // Not called unless the marker's verbs include delete.
  validateDelete(object: Deployment, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating delete', { name: object.metadata?.name });
  }
}

/** The checks every create and update passes; an example rule to replace with your own. */
function validateDeployment(object: Deployment): AdmissionWarnings {
  const errors: FieldError[] = [];
  const rejected = object.metadata?.labels?.['example.com/rejected'];
  if (rejected !== undefined)
    errors.push(FieldError.forbidden("metadata.labels['example.com/rejected']", 'an example rule: remove the label'));
  if (errors.length > 0) throw new ValidationError(errors);
}
