// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../../api/fiz/v1/groupversion.js';
import { barType } from '../../../../api/fiz/v1/bar.client.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('BarValidator', () => {
  const environment = useWebhookEnvironment();

  it('admits a valid Bar', async () => {
    const created = await environment().client.create(barType, {
      apiVersion: API_VERSION,
      kind: 'Bar',
      metadata: { generateName: 'bar-', namespace: 'default' },
      spec: { foo: 'bar' },
    });
    expect(created.metadata?.uid).toBeTruthy();
  });

  it('refuses an invalid Bar with the validator’s message', async () => {
    const attempt = environment().client.create(barType, {
      apiVersion: API_VERSION,
      kind: 'Bar',
      metadata: { generateName: 'bar-', namespace: 'default' },
      spec: { foo: '' },
    });
    await expect(attempt).rejects.toThrow(/spec\.foo: Invalid value: "": must not be empty/);
  });
});
