// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import type { AdmissionContext, Defaulter, Manager } from 'kop/runtime';
import { cronJobType } from '../../../../api/batch/v1/cronjob.client.js';
import type { CronJob } from '../../../../api/batch/v1/cronjob.types.js';

// The apiserver calls this webhook on every create and update of a CronJob v1, before
// validation; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.kb.io,admissionReviewVersions=v1

// #region defaulter
/** How many finished Jobs a CronJob keeps when its spec does not say. */
export interface HistoryDefaults {
  successfulJobsHistoryLimit: number;
  failedJobsHistoryLimit: number;
}

/**
 * Fills in what a CronJob's user left out: `suspend`, and the history limits, which this
 * operator's deployment chooses (the CRD's `+kubebuilder:default` markers take constants only).
 */
export class CronJobDefaulter implements Defaulter<CronJob> {
  constructor(
    private readonly defaults: HistoryDefaults = { successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 },
  ) {}

  /** Registers the webhook: the manager serves it on /mutate-batch-tutorial-kubebuilder-io-v1-cronjob. */
  setupWithManager(manager: Manager): void {
    manager.webhook(cronJobType).withDefaulter(this).complete();
  }

  default(object: CronJob, context: AdmissionContext): void {
    context.logger.debug('defaulting', { name: object.metadata?.name });
    const spec = object.spec;
    spec.suspend ??= false;
    spec.successfulJobsHistoryLimit ??= this.defaults.successfulJobsHistoryLimit;
    spec.failedJobsHistoryLimit ??= this.defaults.failedJobsHistoryLimit;
  }
}
// #endregion defaulter
