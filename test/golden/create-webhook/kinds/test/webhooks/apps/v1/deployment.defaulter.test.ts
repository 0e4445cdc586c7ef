// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { appsV1DeploymentType } from 'kop/runtime/builtin';
import type { Deployment } from 'kop/api';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('DeploymentDefaulter', () => {
  const environment = useWebhookEnvironment();

  // The least a Deployment needs; add what your Deployments carry.
  const sample = (): Deployment => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { generateName: 'deployment-', namespace: environment().namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'sample' } },
      template: {
        metadata: { labels: { app: 'sample' } },
        spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
      },
    },
  });

  it('labels a Deployment when it is created', async () => {
    const created = await environment().client.create(appsV1DeploymentType, sample());
    expect(created.metadata?.labels?.['example.com/defaulted']).toBe('true');
  });

  it('keeps a value the user set', async () => {
    const object = sample();
    object.metadata = { ...object.metadata, labels: { ...object.metadata?.labels, 'example.com/defaulted': 'mine' } };
    const created = await environment().client.create(appsV1DeploymentType, object);
    expect(created.metadata?.labels?.['example.com/defaulted']).toBe('mine');
  });
});
