// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { sailorType } from '../../../../api/crew/v1/sailor.client.js';
import { validSailor } from '../../../fixtures/crew/v1/sailor.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('SailorValidator', () => {
  const environment = useWebhookEnvironment();

  // validSailor() is the one place that fills in what a valid Sailor needs.
  const sample = () => validSailor(environment().namespace);

  it('admits a valid Sailor', async () => {
    const created = await environment().client.create(sailorType, sample());
    expect(created.metadata?.uid).toBeTruthy();
  });

  it('refuses an invalid Sailor with the validator’s message', async () => {
    const object = sample();
    object.spec.foo = '';
    const attempt = environment().client.create(sailorType, object);
    await expect(attempt).rejects.toThrow(/spec\.foo: Invalid value: "": must not be empty/);
  });
});
