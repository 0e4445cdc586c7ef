// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { cronJobType } from '../../../../api/batch/v1/cronjob.client.js';
import type { CronJob, CronJobSpec } from '../../../../api/batch/v1/cronjob.types.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('CronJobDefaulter', () => {
  const environment = useWebhookEnvironment();

  const sample = (spec: Partial<CronJobSpec> = {}): CronJob => ({
    apiVersion: 'batch.tutorial.kubebuilder.io/v1',
    kind: 'CronJob',
    metadata: { generateName: 'cronjob-', namespace: environment().namespace },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: { spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox:1.37' }] } } } },
      ...spec,
    },
  });

  it('fills in what the spec leaves out', async () => {
    const created = await environment().client.create(cronJobType, sample());
    expect(created.spec).toMatchObject({
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      // From the CRD's +kubebuilder:default marker, not the webhook.
      concurrencyPolicy: 'Allow',
    });
  });

  it('keeps what the user set', async () => {
    const created = await environment().client.create(
      cronJobType,
      sample({ suspend: true, successfulJobsHistoryLimit: 0, concurrencyPolicy: 'Forbid' }),
    );
    expect(created.spec).toMatchObject({ suspend: true, successfulJobsHistoryLimit: 0, concurrencyPolicy: 'Forbid' });
  });
});
