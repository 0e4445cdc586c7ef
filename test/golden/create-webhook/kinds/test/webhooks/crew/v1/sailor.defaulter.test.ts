// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { sailorType } from '../../../../api/crew/v1/sailor.client.js';
import { validSailor } from '../../../fixtures/crew/v1/sailor.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('SailorDefaulter', () => {
  const environment = useWebhookEnvironment();

  // validSailor() is the one place that fills in what a valid Sailor needs.
  const sample = () => validSailor(environment().namespace);

  it('fills in spec.foo when a Sailor is created without it', async () => {
    const object = sample();
    delete object.spec.foo;
    const created = await environment().client.create(sailorType, object);
    expect(created.spec.foo).toBe('default');
  });

  it('keeps a value the user set', async () => {
    const object = sample();
    object.spec.foo = 'mine';
    const created = await environment().client.create(sailorType, object);
    expect(created.spec.foo).toBe('mine');
  });
});
