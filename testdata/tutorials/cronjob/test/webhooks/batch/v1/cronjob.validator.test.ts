// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { cronJobType } from '../../../../api/batch/v1/cronjob.client.js';
import type { CronJob } from '../../../../api/batch/v1/cronjob.types.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('CronJobValidator', () => {
  const environment = useWebhookEnvironment();

  // In the test's own namespace: a name used here stays free in every other test file.
  const sample = (name: string, schedule: string): CronJob => ({
    apiVersion: 'batch.tutorial.kubebuilder.io/v1',
    kind: 'CronJob',
    metadata: { name, namespace: environment().namespace },
    spec: {
      schedule,
      jobTemplate: { spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox:1.37' }] } } } },
    },
  });

  it('admits a valid CronJob', async () => {
    const created = await environment().client.create(cronJobType, sample('every-hour', '@hourly'));
    expect(created.metadata?.uid).toBeTruthy();
  });

  it('refuses a schedule cron-parser cannot read', async () => {
    const attempt = environment().client.create(cronJobType, sample('bad-schedule', '61 * * * *'));
    await expect(attempt).rejects.toThrow(/spec\.schedule: Invalid value: "61 \* \* \* \*": .*0-59/);
  });

  it('refuses a schedule with seconds', async () => {
    const attempt = environment().client.create(cronJobType, sample('with-seconds', '0 0 * * * *'));
    await expect(attempt).rejects.toThrow(/spec\.schedule: Invalid value: "0 0 \* \* \* \*": want five fields/);
  });

  it('refuses a name too long for its Jobs', async () => {
    const attempt = environment().client.create(cronJobType, sample('a'.repeat(53), '@hourly'));
    await expect(attempt).rejects.toThrow(/metadata\.name: Too long: may not be (longer|more) than 52/);
  });
});
