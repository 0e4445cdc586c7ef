// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { cronJobType as hubType } from '../../../../api/batch/v1/cronjob.client.js';
import type { CronJob as Hub } from '../../../../api/batch/v1/cronjob.types.js';
import { cronJobType as spokeType } from '../../../../api/batch/v2/cronjob.client.js';
import { convertFrom, convertTo } from '../../../../src/webhooks/batch/v2/cronjob.conversion.js';
import { useWebhookEnvironment } from '../../environment.js';

const jobTemplate = {
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hello', image: 'busybox:1.37' }] } } },
};

// #region roundtrip
// Through a real apiserver whose CRD converts through the manager's /convert endpoint
// (test/webhooks/environment.ts installs config/crd/patches pointed at the test's server).
describe('CronJob v2 ⇄ v1 conversion', () => {
  const environment = useWebhookEnvironment();

  it('reads an object written as v2 as v1, and back unchanged', async () => {
    const { client, namespace } = environment();
    const written = await client.create(spokeType, {
      apiVersion: 'batch.tutorial.kubebuilder.io/v2',
      kind: 'CronJob',
      metadata: { generateName: 'cronjob-', namespace },
      spec: { schedule: { minute: '*/15', hour: '9-17', dayOfWeek: '1-5' }, jobTemplate },
    });
    const key = { namespace, name: written.metadata!.name! };

    const asHub = await client.get(hubType, key);
    expect(asHub.apiVersion).toBe('batch.tutorial.kubebuilder.io/v1');
    expect(asHub.spec.schedule).toBe('*/15 9-17 * * 1-5');

    const roundTripped = await client.get(spokeType, key);
    expect(roundTripped.apiVersion).toBe('batch.tutorial.kubebuilder.io/v2');
    expect(roundTripped.spec).toEqual(written.spec);
    expect(roundTripped.metadata?.uid).toBe(written.metadata?.uid);
  });

  it('reads a v1 macro as the fields it stands for', async () => {
    const { client, namespace } = environment();
    const written = await client.create(hubType, {
      apiVersion: 'batch.tutorial.kubebuilder.io/v1',
      kind: 'CronJob',
      metadata: { generateName: 'cronjob-', namespace },
      spec: { schedule: '@hourly', jobTemplate },
    });
    const asSpoke = await client.get(spokeType, { namespace, name: written.metadata!.name! });
    expect(asSpoke.spec.schedule).toEqual({ minute: '0' });
  });

  it('sends a v2 object through the v1 validator', async () => {
    const { client, namespace } = environment();
    const attempt = client.create(spokeType, {
      apiVersion: 'batch.tutorial.kubebuilder.io/v2',
      kind: 'CronJob',
      metadata: { generateName: 'cronjob-', namespace },
      spec: { schedule: { minute: '75' }, jobTemplate },
    });
    await expect(attempt).rejects.toThrow(/spec\.schedule: Invalid value: "75 \* \* \* \*"/);
  });
});
// #endregion roundtrip

// #region functions
// The functions alone, for the cases the apiserver would not let through as easily.
describe('convertTo and convertFrom', () => {
  const hub = (schedule: string): Hub => ({
    apiVersion: 'batch.tutorial.kubebuilder.io/v1',
    kind: 'CronJob',
    metadata: { name: 'example', namespace: 'default' },
    spec: { schedule, jobTemplate, suspend: true, failedJobsHistoryLimit: 2 },
  });

  it.each([
    ['0 0 1 1 *', { minute: '0', hour: '0', dayOfMonth: '1', month: '1' }],
    ['* * * * *', {}],
    ['@daily', { minute: '0', hour: '0' }],
    ['30  6 * *   MON-FRI', { minute: '30', hour: '6', dayOfWeek: 'MON-FRI' }],
  ])('%s ⇄ %o', (schedule, fields) => {
    const spoke = convertFrom(hub(schedule));
    expect(spoke.spec?.schedule).toEqual(fields);
    // Everything else carries over as it is.
    expect(spoke.spec).toMatchObject({ suspend: true, failedJobsHistoryLimit: 2, jobTemplate });
    // Back to v1 unchanged, macro and spacing included: v2 keeps what it cannot spell in an annotation.
    expect(convertTo(spoke).spec?.schedule).toBe(schedule);
  });

  it('keeps a line that is not five fields, which v2 cannot spell, for the way back', () => {
    const spoke = convertFrom(hub('0 0 * *'));
    expect(spoke.spec?.schedule).toEqual({});
    expect(convertTo(spoke).spec?.schedule).toBe('0 0 * *');
  });

  it('converts a pruned object, with no spec and no metadata', () => {
    expect(convertFrom({ apiVersion: 'batch.tutorial.kubebuilder.io/v1', kind: 'CronJob' }).spec).toBeUndefined();
    expect(convertTo({ apiVersion: 'batch.tutorial.kubebuilder.io/v2', kind: 'CronJob' }).spec).toBeUndefined();
  });
});
// #endregion functions
