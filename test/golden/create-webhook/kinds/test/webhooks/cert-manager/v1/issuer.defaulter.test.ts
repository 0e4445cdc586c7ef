// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { issuerType } from '../../../../api/cert-manager/v1/issuer.client.js';
import { validIssuer } from '../../../fixtures/cert-manager/v1/issuer.js';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('IssuerDefaulter', () => {
  const environment = useWebhookEnvironment();

  // validIssuer() is the one place that fills in what a valid Issuer needs.
  const sample = () => validIssuer(environment().namespace);

  it('labels a Issuer when it is created', async () => {
    const created = await environment().client.create(issuerType, sample());
    expect(created.metadata?.labels?.['example.com/defaulted']).toBe('true');
  });

  it('keeps a value the user set', async () => {
    const object = sample();
    object.metadata = { ...object.metadata, labels: { ...object.metadata?.labels, 'example.com/defaulted': 'mine' } };
    const created = await environment().client.create(issuerType, object);
    expect(created.metadata?.labels?.['example.com/defaulted']).toBe('mine');
  });
});
