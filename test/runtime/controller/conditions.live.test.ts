// setCondition writes conditions that a CRD with meta/v1 Condition's schema (what kop generates for
// kop/api's Condition) accepts.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SharedControlPlane } from '../../helpers/shared-control-plane.js';
import type { Condition } from '../../../src/api/index.js';
import type { ResourceType } from '../../../src/runtime/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import { setCondition } from '../../../src/runtime/index.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import { freshNamespace, useTestControlPlane } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const coreTypes = JSON.parse(readFileSync(path.join(here, '../../../src/schema/core-types/k8s-1.36.json'), 'utf8')) as {
  schemas: Record<string, object>;
};

let plane: SharedControlPlane;
let admin: RestClient;
useTestControlPlane((started) => ({ plane, admin } = started));

const gadgetResource: ResourceType = {
  group: 'test.kop.dev',
  version: 'v1',
  resource: 'gadgets',
  kind: 'Gadget',
  namespaced: true,
};

interface Gadget {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; generation?: number; resourceVersion?: string };
  spec?: Record<string, unknown>;
  status?: { conditions?: Condition[] };
}

describe('conditions against a CRD with the meta/v1 Condition schema', () => {
  it('a message longer than the schema allows (32768 characters) is shortened so the status write is accepted', async () => {
    await plane.installCRDs({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.test.kop.dev' },
      spec: {
        group: 'test.kop.dev',
        names: { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  status: {
                    type: 'object',
                    properties: {
                      conditions: {
                        type: 'array',
                        items: coreTypes.schemas.Condition,
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['type'],
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    } as never);
    const ns = await freshNamespace(admin, 'conditions');
    const gadgets = new ResourceClient<Gadget>(admin, gadgetResource, ns);
    const gadget = await gadgets.create({ metadata: { name: 'g' }, spec: {} });
    const conditions: Condition[] = [];
    // An error message that embeds a huge response body, in characters outside the BMP too.
    const message = `backend said: ${'😀'.repeat(40_000)}`;
    setCondition(conditions, {
      type: 'Ready',
      status: 'False',
      reason: 'BackendFailed',
      message,
      observedGeneration: gadget.metadata?.generation,
    });
    const written = await gadgets.updateStatus({ ...gadget, status: { conditions } });
    const stored = written.status?.conditions?.[0];
    expect(stored?.reason).toBe('BackendFailed');
    expect([...stored!.message].length).toBeLessThanOrEqual(32768);
    expect(stored!.message.startsWith('backend said: 😀😀')).toBe(true);
  });
});
