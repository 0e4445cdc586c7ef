// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import type { Client } from 'kop/runtime';
import { coreV1NamespaceType } from 'kop/runtime/builtin';
import { createClient, RestClient } from 'kop/runtime/client';
import { afterAll, beforeAll, inject } from 'vitest';

/** What a webhook test works with. */
export interface WebhookEnvironment {
  /** Admin client, talking to the apiserver (which calls the webhooks). */
  client: Client;
  /** A namespace of this test file's own, for its namespaced objects. */
  namespace: string;
}

/**
 * The webhooks run in the control plane test/global-setup.ts starts once for every test file:
 * the apiserver calls a manager there that serves every webhook setupWebhooks() registers, with
 * the configurations of config/webhook and the conversion patches of config/crd/patches (`npm test`
 * runs `kop generate` first, so they match the markers). Call this at the top of a `describe`: it
 * makes a client and a namespace for the file before its tests, and the returned function gives them.
 */
export function useWebhookEnvironment(): () => WebhookEnvironment {
  let rest: RestClient | undefined;
  let environment: WebhookEnvironment | undefined;
  beforeAll(async () => {
    rest = RestClient.load({ kubeconfig: inject('kubeconfigPath') });
    const client = createClient(rest);
    const namespace = await client.create(coreV1NamespaceType, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { generateName: 'webhook-test-' },
    });
    environment = { client, namespace: namespace.metadata!.name! };
  });
  afterAll(() => {
    rest?.close();
  });
  return () => {
    if (environment === undefined) throw new Error('the webhook environment has not started');
    return environment;
  };
}
