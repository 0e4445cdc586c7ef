// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { barType } from '../../../../api/foo/v1/bar.client.js';
import { validBar } from '../../../fixtures/foo/v1/bar.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('BarDefaulter', () => {
  const environment = useWebhookEnvironment();

  // validBar() is the one place that fills in what a valid Bar needs.
  const sample = () => validBar(environment().namespace);

  it('fills in spec.foo when a Bar is created without it', async () => {
    const object = sample();
    delete object.spec.foo;
    const created = await environment().client.create(barType, object);
    expect(created.spec.foo).toBe('default');
  });

  it('keeps a value the user set', async () => {
    const object = sample();
    object.spec.foo = 'mine';
    const created = await environment().client.create(barType, object);
    expect(created.spec.foo).toBe('mine');
  });
});
