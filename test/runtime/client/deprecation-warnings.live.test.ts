// A deprecated version (`+kubebuilder:deprecatedversion`, in the CRD kop generate writes for the
// multi-version schema case) makes the apiserver warn its clients: a create at that version
// answers with a Warning header, the REST client hands it to onWarning, and a Manager's client
// logs each distinct warning once.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager, type Logger, type ResourceType } from '../../../src/runtime/index.js';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import type { LogFields } from '../../../src/runtime/manager/index.js';
import { leaseTestControlPlane, type LeasedControlPlane } from '../controller/helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const GENERATED_CRD = path.join(here, '../../schema/cases/multi-version/crd.yaml');
const WARNING = 'example.com/v1beta1 Widget is deprecated; use v1';

interface Gadget {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string };
  spec?: { size?: number };
}
const gadgetV1beta1: ResourceType<Gadget> = {
  group: 'versions.example.com',
  version: 'v1beta1',
  resource: 'gadgets',
  kind: 'Gadget',
  namespaced: true,
};

let plane: LeasedControlPlane;
beforeAll(async () => {
  plane = await leaseTestControlPlane();
  // The plane's reset after this file deletes the CRD again.
  await plane.installCRDs([GENERATED_CRD]);
});
afterAll(async () => {
  await plane?.release();
});

describe('deprecated versions', () => {
  it('a create at the deprecated version comes back with the warning header', async () => {
    const warnings: Array<{ warning: string; method: string; path: string }> = [];
    const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), {
      onWarning: (warning, request) => void warnings.push({ warning, ...request }),
    });
    try {
      await rest.post('/apis/versions.example.com/v1beta1/namespaces/default/gadgets', {
        apiVersion: 'versions.example.com/v1beta1',
        kind: 'Gadget',
        metadata: { name: 'old' },
        spec: { size: 1 },
      });
      expect(warnings).toEqual([
        { warning: WARNING, method: 'POST', path: '/apis/versions.example.com/v1beta1/namespaces/default/gadgets' },
      ]);
      // The version that is not deprecated draws no warning.
      await rest.post('/apis/versions.example.com/v1/namespaces/default/gadgets', {
        apiVersion: 'versions.example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'new' },
        spec: { size: 1 },
      });
      expect(warnings).toHaveLength(1);
    } finally {
      rest.close();
    }
  });

  it("a Manager's client logs each distinct warning once", async () => {
    const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (message, fields) => void lines.push({ level: 'warn', message, fields }),
      error: (message, fields) => void lines.push({ level: 'error', message, fields }),
      child: () => logger,
    };
    const manager = new Manager({
      kubeconfig: plane.kubeconfigPath,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logger,
    });
    try {
      for (const name of ['a', 'b', 'c']) {
        await manager.client.create(gadgetV1beta1, { metadata: { name, namespace: 'default' }, spec: { size: 2 } });
      }
      await manager.client.get(gadgetV1beta1, { namespace: 'default', name: 'a' });
      const warned = lines.filter((l) => l.message === 'warning from the apiserver');
      expect(warned).toEqual([
        {
          level: 'warn',
          message: 'warning from the apiserver',
          fields: {
            warning: WARNING,
            request: 'POST /apis/versions.example.com/v1beta1/namespaces/default/gadgets',
          },
        },
      ]);
    } finally {
      manager.rest.close();
    }
  });
});
