// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import type { Job } from 'kop/api';
import { Manager, silentLogger } from 'kop/runtime';
import { batchV1JobType, coreV1NamespaceType } from 'kop/runtime/builtin';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cronJobType } from '../../api/batch/v1/cronjob.client.js';
import type { CronJob, CronJobSpec } from '../../api/batch/v1/cronjob.types.js';
import { CronJobReconciler, SCHEDULED_TIME_ANNOTATION } from '../../src/controllers/cronjob.controller.js';
import { validCronJob } from '../fixtures/batch/v1/cronjob.js';

// Runs the reconciler in a real manager against the API server that test/global-setup.ts
// starts, with the CRDs of config/crd/bases installed (`npm test` runs `kop generate` first).
// That control plane has no Job controller: Jobs stay as created unless a test writes their status.

// Every test file shares the one control plane: the manager watches a namespace of this test's own.
const NAMESPACE = 'cronjob-test';

describe('CronJobReconciler', () => {
  const manager = new Manager({
    kubeconfig: inject('kubeconfigPath'),
    namespace: NAMESPACE,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
  });
  // The test reads what the apiserver has now, not the manager's cache.
  const client = manager.apiReader;

  beforeAll(async () => {
    await client.create(coreV1NamespaceType, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  });

  // #region clock
  beforeAll(() => {
    // The reconciler's clock stands still two minutes ahead: an every-minute schedule is due for
    // each CronJob the tests create, without waiting for the minute to turn, and no second run
    // comes due while they run.
    const now = new Date(Date.now() + 120_000);
    new CronJobReconciler(() => now).setupWithManager(manager);
    manager.start().catch((error: unknown) => {
      throw error;
    });
  });
  // #endregion clock
  afterAll(async () => {
    await manager.stop();
    manager.rest.close();
  });

  // #region creates
  it('creates a Job for a run that is due and lists it as active', async () => {
    const cronJob = await createCronJob({ schedule: '* * * * *' });

    const [job] = await eventually(async () => {
      const list = await jobsOf(cronJob);
      return list.length > 0 ? list : undefined;
    });
    expect(job.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'CronJob', name: cronJob.metadata?.name, controller: true }),
    ]);
    expect(job.metadata?.annotations?.[SCHEDULED_TIME_ANNOTATION]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    expect(job.spec?.template.spec?.containers[0]?.image).toBe('busybox:1.37');

    const status = await eventually(async () => {
      const current = await client.get(cronJobType, keyOf(cronJob));
      return current.status?.active?.length === 1 ? current.status : undefined;
    });
    expect(status.active?.[0]?.name).toBe(job.metadata?.name);
    expect(status.lastScheduleTime).toBe(job.metadata?.annotations?.[SCHEDULED_TIME_ANNOTATION]);
  });
  // #endregion creates

  it('takes a finished Job off the active list', async () => {
    const cronJob = await createCronJob({ schedule: '* * * * *', concurrencyPolicy: 'Forbid' });
    const [job] = await eventually(async () => {
      const list = await jobsOf(cronJob);
      return list.length > 0 ? list : undefined;
    });

    // What the Job controller would write when the Job's Pod fails.
    const now = new Date().toISOString().slice(0, 19) + 'Z';
    await client.status().update(batchV1JobType, {
      ...job,
      status: {
        startTime: now,
        conditions: [
          { type: 'FailureTarget', status: 'True', reason: 'BackoffLimitExceeded', lastTransitionTime: now },
          { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', lastTransitionTime: now },
        ],
      },
    });

    await eventually(async () => {
      const current = await client.get(cronJobType, keyOf(cronJob));
      return current.status?.active?.length === 0 ? current : undefined;
    });
  });

  it('starts nothing while suspended', async () => {
    const cronJob = await createCronJob({ schedule: '* * * * *', suspend: true });
    // Reconciled: the status has been written once, with no active Job.
    await eventually(async () => {
      const current = await client.get(cronJobType, keyOf(cronJob));
      return current.status?.active !== undefined ? current : undefined;
    });
    expect(await jobsOf(cronJob)).toEqual([]);
  });

  /** A CronJob of the fixture (whose Jobs run busybox) in the test's namespace, with `spec` on top. */
  function createCronJob(spec: Partial<CronJobSpec>): Promise<CronJob> {
    const valid = validCronJob(NAMESPACE);
    return client.create(cronJobType, { ...valid, spec: { ...valid.spec, ...spec } });
  }

  /** The Jobs a CronJob controls, as the apiserver has them now. */
  async function jobsOf(cronJob: CronJob): Promise<Job[]> {
    const { items } = await client.list(batchV1JobType, { namespace: NAMESPACE });
    return items.filter((job) => job.metadata?.ownerReferences?.some((ref) => ref.uid === cronJob.metadata?.uid));
  }
});

function keyOf(object: CronJob): { namespace: string; name: string } {
  return { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
}

/** Polls `check` until it returns a truthy value; fails after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
