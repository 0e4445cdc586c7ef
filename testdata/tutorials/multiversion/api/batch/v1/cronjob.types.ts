// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import type { JobTemplateSpec, ListMeta, ObjectMeta, ObjectReference, Time, int32, int64 } from 'kop/api';

// #region spec
/** CronJobSpec says what to run and when. */
export interface CronJobSpec {
  /**
   * schedule is when to run, in cron syntax: five fields (minute, hour, day of month, month,
   * day of week) such as "30 6 * * 1-5", or a macro such as "@hourly".
   * +kubebuilder:validation:MinLength=1
   */
  schedule: string;

  /**
   * startingDeadlineSeconds is how late a run may still start, in seconds after its scheduled
   * time. A run missed by more is skipped and counted as missed.
   * +kubebuilder:validation:Minimum=0
   * +optional
   */
  startingDeadlineSeconds?: int64;

  /**
   * concurrencyPolicy says what to do when a run is due while an earlier Job still runs:
   * Allow starts the new Job beside it, Forbid skips the new run, Replace deletes the running
   * Job and starts the new one.
   * +kubebuilder:default=Allow
   * +optional
   */
  concurrencyPolicy?: ConcurrencyPolicy;

  /**
   * suspend stops new runs from starting; Jobs already running go on.
   * +optional
   */
  suspend?: boolean;

  /** jobTemplate is the Job each run creates. */
  jobTemplate: JobTemplateSpec;

  /**
   * successfulJobsHistoryLimit is how many finished Jobs that succeeded are kept.
   * +kubebuilder:validation:Minimum=0
   * +optional
   */
  successfulJobsHistoryLimit?: int32;

  /**
   * failedJobsHistoryLimit is how many finished Jobs that failed are kept.
   * +kubebuilder:validation:Minimum=0
   * +optional
   */
  failedJobsHistoryLimit?: int32;
}

/**
 * ConcurrencyPolicy is what a CronJob does when a run is due while an earlier one still runs.
 * +kubebuilder:validation:Enum=Allow;Forbid;Replace
 */
export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';
// #endregion spec

// #region status
/** CronJobStatus is what the controller last saw of a CronJob's Jobs. */
export interface CronJobStatus {
  /**
   * active lists the Jobs of this CronJob that are still running.
   * +listType=atomic
   * +optional
   */
  active?: ObjectReference[];

  /**
   * lastScheduleTime is the scheduled time of the last run a Job was created for.
   * +optional
   */
  lastScheduleTime?: Time;
}
// #endregion status

/**
 * CronJob runs a Job on a schedule.
 * +kubebuilder:object:root=true
 * +kubebuilder:storageversion
 * +kubebuilder:subresource:status
 */
export interface CronJob {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ObjectMeta;
  /**
   * spec says what to run and when.
   * +required
   */
  spec: CronJobSpec;
  /**
   * status is what the controller last saw.
   * +optional
   */
  status?: CronJobStatus;
}

/**
 * CronJobList is what listing cronjobs returns.
 * +kubebuilder:object:root=true
 */
export interface CronJobList {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ListMeta;
  items: CronJob[];
}
