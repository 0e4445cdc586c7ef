// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { coreV1PodType } from 'kop/runtime/builtin';
import type { Pod } from 'kop/api';
import { useWebhookEnvironment } from '../../environment.js';

// Through a real apiserver that calls the webhook served by a real manager (test/webhooks/environment.ts).
describe('PodDefaulter', () => {
  const environment = useWebhookEnvironment();

  // The least a Pod needs; add what your Pods carry.
  const sample = (): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'pod-', namespace: environment().namespace },
    spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
  });

  it('labels a Pod when it is created', async () => {
    const created = await environment().client.create(coreV1PodType, sample());
    expect(created.metadata?.labels?.['example.com/defaulted']).toBe('true');
  });

  it('keeps a value the user set', async () => {
    const object = sample();
    object.metadata = { ...object.metadata, labels: { ...object.metadata?.labels, 'example.com/defaulted': 'mine' } };
    const created = await environment().client.create(coreV1PodType, object);
    expect(created.metadata?.labels?.['example.com/defaulted']).toBe('mine');
  });
});
