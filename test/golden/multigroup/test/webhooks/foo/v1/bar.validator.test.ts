// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { barType } from '../../../../api/foo/v1/bar.client.js';
import { validBar } from '../../../fixtures/foo/v1/bar.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('BarValidator', () => {
  const environment = useWebhookEnvironment();

  // validBar() is the one place that fills in what a valid Bar needs.
  const sample = () => validBar(environment().namespace);

  it('admits a valid Bar', async () => {
    const created = await environment().client.create(barType, sample());
    expect(created.metadata?.uid).toBeTruthy();
  });

  it('refuses an invalid Bar with the validator’s message', async () => {
    const object = sample();
    object.spec.foo = '';
    const attempt = environment().client.create(barType, object);
    await expect(attempt).rejects.toThrow(/spec\.foo: Invalid value: "": must not be empty/);
  });
});
