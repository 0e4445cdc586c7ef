// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

// #region imports
import { CronExpressionParser } from 'cron-parser';
import type { Job } from 'kop/api';
import {
  isAlreadyExists,
  isNotFound,
  setControllerReference,
  TerminalError,
  type Client,
  type Logger,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
  type Request,
} from 'kop/runtime';
import { batchV1JobType } from 'kop/runtime/builtin';
import { getReference } from 'kop/runtime/controller';
import { cronJobType } from '../../api/batch/v1/cronjob.client.js';
import type { CronJob } from '../../api/batch/v1/cronjob.types.js';
import { API_VERSION } from '../../api/batch/v1/groupversion.js';
// #endregion imports

// #region rbac
// What the manager may do; `kop generate manifests` writes these rules to config/rbac/role.yaml.
// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=batch,resources=jobs/status,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// #endregion rbac

// #region constants
/** The annotation on each Job that records the time it was scheduled for. */
export const SCHEDULED_TIME_ANNOTATION = 'batch.tutorial.kubebuilder.io/scheduled-at';

/** The field index that finds a CronJob's Jobs: the name of the CronJob that controls a Job. */
export const JOB_OWNER_FIELD = '.metadata.controller';
// #endregion constants

/**
 * Reconciles CronJob objects: creates a Job each time the schedule comes round, keeps the
 * status's list of running Jobs, and deletes finished Jobs beyond the history limits.
 */
export class CronJobReconciler {
  // #region clock
  /**
   * @param now the clock; tests pass one that runs ahead, so a schedule comes due without waiting.
   */
  constructor(private readonly now: () => Date = () => new Date()) {}
  // #endregion clock

  // #region setup
  /**
   * Registers the controller: a change to a CronJob, or to a Job one controls, queues a
   * reconcile of that CronJob.
   */
  setupWithManager(manager: Manager): void {
    // The cache indexes Jobs by the CronJob that controls them, so reconcile lists a CronJob's
    // Jobs with `matchingFields` instead of reading every Job of the namespace.
    manager.indexField(batchV1JobType, JOB_OWNER_FIELD, (job) => {
      const owner = job.metadata?.ownerReferences?.find((ref) => ref.controller === true);
      return owner?.apiVersion === API_VERSION && owner.kind === 'CronJob' ? [owner.name] : [];
    });
    manager.controller('cronjob').for(cronJobType).owns(batchV1JobType).complete(this);
  }
  // #endregion setup

  /**
   * Brings one CronJob in line with its schedule. Each call looks at the Jobs that exist and
   * the clock, so it is safe to call any number of times; it returns when to look again.
   */
  async reconcile(request: Request, { client, logger }: ReconcileContext): Promise<ReconcileResult> {
    // #region get
    let cronJob: CronJob;
    try {
      cronJob = await client.get(cronJobType, request);
    } catch (error) {
      // Deleted meanwhile: its Jobs go with it, through their owner references.
      if (isNotFound(error)) return;
      throw error;
    }
    // #endregion get

    // #region list
    const { items: jobs } = await client.list(batchV1JobType, {
      namespace: request.namespace,
      matchingFields: { [JOB_OWNER_FIELD]: request.name },
    });
    const active: Job[] = [];
    const successful: Job[] = [];
    const failed: Job[] = [];
    let lastScheduled: Date | undefined;
    for (const job of jobs) {
      const finished = finishedAs(job);
      if (finished === 'Complete') successful.push(job);
      else if (finished === 'Failed') failed.push(job);
      else active.push(job);
      const scheduled = scheduledTime(job);
      if (scheduled && (!lastScheduled || scheduled > lastScheduled)) lastScheduled = scheduled;
    }
    // #endregion list

    // #region status
    const status = {
      ...cronJob.status,
      // A listed Job may come without apiVersion and kind: its type says them.
      active: active.map((job) => getReference(job, batchV1JobType)),
      lastScheduleTime: lastScheduled ? toRfc3339(lastScheduled) : cronJob.status?.lastScheduleTime,
    };
    if (JSON.stringify(status) !== JSON.stringify(cronJob.status ?? {})) {
      // Through the status subresource; the read's resourceVersion makes a stale write fail
      // with a conflict, and the retry reads again.
      cronJob = await client.status().update(cronJobType, { ...cronJob, status });
    }
    logger.info('jobs', { active: active.length, successful: successful.length, failed: failed.length });
    // #endregion status

    // #region history
    await deleteOldest(client, logger, failed, cronJob.spec.failedJobsHistoryLimit);
    await deleteOldest(client, logger, successful, cronJob.spec.successfulJobsHistoryLimit);
    // #endregion history

    // #region suspend
    if (cronJob.spec.suspend === true) {
      logger.info('suspended: no new runs');
      return;
    }
    // #endregion suspend

    // #region schedule
    const now = this.now();
    const { missed, next } = runTimes(cronJob, now);
    // Look again when the next run is due, whatever happens below.
    const requeue = { requeueAfter: Math.max(next.getTime() - now.getTime(), 0) };
    if (!missed) return requeue;

    const deadline = cronJob.spec.startingDeadlineSeconds;
    if (deadline !== undefined && missed.getTime() + deadline * 1000 < now.getTime()) {
      logger.info('missed the starting deadline of the last run', { scheduledAt: toRfc3339(missed) });
      return requeue;
    }
    // #endregion schedule

    // #region concurrency
    const policy = cronJob.spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && active.length > 0) {
      logger.info('a run is due but an earlier Job still runs', { active: active.length });
      return requeue;
    }
    if (policy === 'Replace') {
      for (const job of active) {
        await deleteJob(client, job);
        logger.info('deleted a running Job to replace it', { job: job.metadata?.name });
      }
    }
    // #endregion concurrency

    // #region create
    const job = jobFor(cronJob, missed);
    try {
      await client.create(batchV1JobType, job);
      logger.info('created a Job', { job: job.metadata?.name, scheduledAt: toRfc3339(missed) });
    } catch (error) {
      // Created by an earlier reconcile whose Job the cache had not seen yet: the name is the
      // run's, so this run has its Job.
      if (!isAlreadyExists(error)) throw error;
    }
    return requeue;
    // #endregion create
  }
}

// #region helpers
/** How a Job finished, from its conditions; undefined while it runs. */
function finishedAs(job: Job): 'Complete' | 'Failed' | undefined {
  const condition = job.status?.conditions?.find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
  return condition?.type as 'Complete' | 'Failed' | undefined;
}

/** The scheduled time a Job was created for, from its annotation. */
function scheduledTime(job: Job): Date | undefined {
  const value = job.metadata?.annotations?.[SCHEDULED_TIME_ANNOTATION];
  if (value === undefined) return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

/** A time as meta/v1 Time writes it: RFC 3339 in UTC, whole seconds. */
function toRfc3339(time: Date): string {
  return `${time.toISOString().slice(0, 19)}Z`;
}
// #endregion helpers

// #region deleteOldest
/** Deletes the oldest of `jobs` until `limit` are left (none when the limit is unset). */
async function deleteOldest(client: Client, logger: Logger, jobs: Job[], limit: number | undefined): Promise<void> {
  if (limit === undefined) return;
  const byAge = [...jobs].sort((a, b) =>
    (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? ''),
  );
  for (const job of byAge.slice(0, Math.max(byAge.length - limit, 0))) {
    await deleteJob(client, job);
    logger.info('deleted an old Job', { job: job.metadata?.name });
  }
}

/** Deletes a Job and, in the background, its Pods; a Job gone already is fine. */
async function deleteJob(client: Client, job: Job): Promise<void> {
  try {
    await client.delete(
      batchV1JobType,
      { namespace: job.metadata?.namespace, name: job.metadata?.name ?? '' },
      { propagationPolicy: 'Background' },
    );
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
// #endregion deleteOldest

// #region runTimes
/**
 * The latest run time that has come and has no Job yet (`missed`), and the next one to come.
 * Runs are counted from the last scheduled run, or from the CronJob's creation, in UTC.
 */
function runTimes(cronJob: CronJob, now: Date): { missed?: Date; next: Date } {
  let expression;
  try {
    // `prev()` is strictly before `currentDate`; one millisecond on counts a run due right now.
    expression = CronExpressionParser.parse(cronJob.spec.schedule, {
      currentDate: new Date(now.getTime() + 1),
      tz: 'UTC',
    });
  } catch (error) {
    // Retrying cannot fix a schedule; the next change to the CronJob reconciles it again.
    throw new TerminalError(`unparseable schedule "${cronJob.spec.schedule}": ${String(error)}`, { cause: error });
  }
  const next = expression.next().toDate();
  expression.reset(new Date(now.getTime() + 1));
  const latest = expression.prev().toDate();
  const since = cronJob.status?.lastScheduleTime ?? cronJob.metadata?.creationTimestamp;
  const missed = since === undefined || latest > new Date(since) ? latest : undefined;
  return { missed, next };
}
// #endregion runTimes

// #region jobFor
/** The Job of the run scheduled at `scheduledAt`, named after the CronJob and that time. */
function jobFor(cronJob: CronJob, scheduledAt: Date): Job {
  const template = cronJob.spec.jobTemplate;
  const job: Job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      // One name per run, so a second reconcile for the same run cannot create a second Job.
      name: `${cronJob.metadata?.name}-${Math.floor(scheduledAt.getTime() / 1000)}`,
      namespace: cronJob.metadata?.namespace,
      labels: { ...template.metadata?.labels },
      annotations: { ...template.metadata?.annotations, [SCHEDULED_TIME_ANNOTATION]: toRfc3339(scheduledAt) },
    },
    spec: structuredClone(template.spec),
  };
  // The CronJob controls the Job: deleting the CronJob deletes it, and its changes reach
  // `.owns(batchV1JobType)` above.
  return setControllerReference(cronJob, job);
}
// #endregion jobFor
