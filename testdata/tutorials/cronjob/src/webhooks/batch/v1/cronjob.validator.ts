// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import { CronExpressionParser } from 'cron-parser';
import {
  FieldError,
  ValidationError,
  type AdmissionContext,
  type AdmissionWarnings,
  type Manager,
  type Validator,
} from 'kop/runtime';
import { cronJobType } from '../../../../api/batch/v1/cronjob.client.js';
import type { CronJob } from '../../../../api/batch/v1/cronjob.types.js';

// The apiserver calls this webhook on every create and update of a CronJob v1, after
// defaulting; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/validate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.kb.io,admissionReviewVersions=v1

// #region validator
/**
 * Refuses a CronJob whose Jobs could never be created: a schedule cron-parser cannot read (the
 * CRD's schema cannot parse cron syntax), or a name too long for the Job names made from it.
 */
export class CronJobValidator implements Validator<CronJob> {
  /** Registers the webhook: the manager serves it on /validate-batch-tutorial-kubebuilder-io-v1-cronjob. */
  setupWithManager(manager: Manager): void {
    manager.webhook(cronJobType).withValidator(this).complete();
  }

  validateCreate(object: CronJob, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating create', { name: object.metadata?.name });
    return validateCronJob(object);
  }

  validateUpdate(oldObject: CronJob, newObject: CronJob, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating update', { name: newObject.metadata?.name });
    return validateCronJob(newObject);
  }

  // Not called unless the marker's verbs include delete.
  validateDelete(object: CronJob, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating delete', { name: object.metadata?.name });
  }
}

/**
 * The longest CronJob name: a Job is named `<cronjob>-<unix seconds>` (11 characters added) and a
 * Job's name becomes a label value on its Pods, which holds at most 63.
 */
export const MAX_NAME_LENGTH = 52;

function validateCronJob(object: CronJob): AdmissionWarnings {
  const errors: FieldError[] = [];
  const name = object.metadata?.name ?? '';
  if (name.length > MAX_NAME_LENGTH) errors.push(FieldError.tooLong('metadata.name', name, MAX_NAME_LENGTH));
  const schedule = object.spec.schedule;
  // Five fields (no seconds) or a macro, as Kubernetes' own CronJob takes them.
  if (!schedule.trim().startsWith('@') && schedule.trim().split(/\s+/).length !== 5) {
    errors.push(
      FieldError.invalid('spec.schedule', schedule, 'want five fields: minute hour day-of-month month day-of-week'),
    );
  } else {
    try {
      CronExpressionParser.parse(schedule);
    } catch (error) {
      errors.push(FieldError.invalid('spec.schedule', schedule, (error as Error).message));
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);
}
// #endregion validator
