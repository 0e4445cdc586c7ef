// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkConversionRoundTrip } from 'kop/testing';
import { describe, expect, it } from 'vitest';
import { cronJobType as hubType } from '../../../../api/batch/v1/cronjob.client.js';
import { cronJobType as spokeType } from '../../../../api/batch/v2/cronjob.client.js';
import { convertFrom, convertTo } from '../../../../src/webhooks/batch/v2/cronjob.conversion.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

// No control plane: objects generated from the CRD's own schema (config/crd/bases, written by
// `kop generate`) go v2 → v1 → v2 and v1 → v2 → v1 and must
// come back unchanged, pruned ones (any field missing, as server-side apply sends) included. A
// failure names the path that was lost and the smallest object that shows it; the seed is fixed,
// so a run repeats the last one.
describe('CronJob v2 ⇄ v1 round trip', () => {
  it('gives back every object both ways', async () => {
    await checkConversionRoundTrip({
      crd: join(projectRoot, 'config', 'crd', 'bases'),
      hub: hubType,
      spoke: spokeType,
      conversion: { convertTo, convertFrom },
      runs: 200,
    });
  });

  it('converts a pruned object with no spec and no metadata', () => {
    expect(convertTo({ apiVersion: 'batch.tutorial.kubebuilder.io/v2', kind: 'CronJob' })).toMatchObject({
      apiVersion: 'batch.tutorial.kubebuilder.io/v1',
      kind: 'CronJob',
    });
    expect(convertFrom({ apiVersion: 'batch.tutorial.kubebuilder.io/v1', kind: 'CronJob' })).toMatchObject({
      apiVersion: 'batch.tutorial.kubebuilder.io/v2',
      kind: 'CronJob',
    });
  });
});
