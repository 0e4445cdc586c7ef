// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { issuerType } from '../../../../api/cert-manager/v1/issuer.client.js';
import type { Issuer } from '../../../../api/cert-manager/v1/issuer.types.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('IssuerDefaulter', () => {
  const environment = useWebhookEnvironment();

  // The least a Issuer needs; add what your Issuers carry.
  const sample = (labels: Record<string, string> = {}): Issuer => ({
    apiVersion: 'cert-manager.io/v1',
    kind: 'Issuer',
    metadata: { generateName: 'issuer-', namespace: 'default', labels },
  });

  it('labels a Issuer when it is created', async () => {
    const created = await environment().client.create(issuerType, sample());
    expect(created.metadata?.labels?.['example.com/defaulted']).toBe('true');
  });

  it('keeps a value the user set', async () => {
    const created = await environment().client.create(issuerType, sample({ 'example.com/defaulted': 'mine' }));
    expect(created.metadata?.labels?.['example.com/defaulted']).toBe('mine');
  });
});
