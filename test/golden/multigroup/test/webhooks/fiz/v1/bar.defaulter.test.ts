// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../../api/fiz/v1/groupversion.js';
import { barType } from '../../../../api/fiz/v1/bar.client.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('BarDefaulter', () => {
  const environment = useWebhookEnvironment();

  it('fills in spec.foo when a Bar is created without it', async () => {
    const created = await environment().client.create(barType, {
      apiVersion: API_VERSION,
      kind: 'Bar',
      metadata: { generateName: 'bar-', namespace: 'default' },
      spec: {},
    });
    expect(created.spec.foo).toBe('default');
  });

  it('keeps a value the user set', async () => {
    const created = await environment().client.create(barType, {
      apiVersion: API_VERSION,
      kind: 'Bar',
      metadata: { generateName: 'bar-', namespace: 'default' },
      spec: { foo: 'mine' },
    });
    expect(created.spec.foo).toBe('mine');
  });
});
