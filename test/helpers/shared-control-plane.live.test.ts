// The live project's shared control planes: a plane handed back is reset and handed on (not started
// again), two files at once get two planes, a plane that cannot be reset is replaced, and closing
// the broker stops them all.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../src/runtime/client/index.js';
import { isNotFound } from '../../src/runtime/index.js';
import type { CustomResourceDefinition } from '../../src/testing/index.js';
import { SharedControlPlaneBroker } from './shared-control-plane-broker.js';
import { acquireSharedControlPlane, type SharedControlPlane } from './shared-control-plane.js';

let broker: SharedControlPlaneBroker;
beforeAll(async () => {
  broker = await SharedControlPlaneBroker.start();
});
afterAll(async () => {
  await broker?.close();
});

const admin = (plane: SharedControlPlane) =>
  new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });

async function missing(rest: RestClient, path: string): Promise<boolean> {
  try {
    await rest.get(path);
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}

const gizmoCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.shared.kop.dev' },
  spec: {
    group: 'shared.kop.dev',
    scope: 'Namespaced',
    names: { kind: 'Gizmo', listKind: 'GizmoList', plural: 'gizmos', singular: 'gizmo' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

describe('shared control planes', () => {
  it('hand a released plane to the next lease, without what the last one made', async () => {
    const first = await acquireSharedControlPlane(broker.address);
    const rest = admin(first.plane);
    const server = first.plane.server;
    try {
      await rest.post('/api/v1/namespaces', { metadata: { name: 'made-here' } });
      await rest.post('/apis/test.kop.dev/v1/namespaces/made-here/widgets', {
        apiVersion: 'test.kop.dev/v1',
        kind: 'Widget',
        metadata: { name: 'held', finalizers: ['test.kop.dev/hold'] },
      });
      await rest.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'in-default' } });
      await rest.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        metadata: { name: 'made-here' },
        rules: [],
      });
      await first.plane.installCRDs([gizmoCrd]);
      await rest.post('/apis/shared.kop.dev/v1/namespaces/made-here/gizmos', {
        apiVersion: 'shared.kop.dev/v1',
        kind: 'Gizmo',
        metadata: { name: 'g' },
      });
      const user = await first.plane.addUser({ name: 'someone', groups: ['people'] });
      expect(existsSync(user.kubeconfigPath)).toBe(true);
    } finally {
      rest.close();
      await first.release();
    }

    const second = await acquireSharedControlPlane(broker.address);
    const after = admin(second.plane);
    try {
      expect(second.plane.server).toBe(server);
      expect(broker.started).toBe(1);
      for (const path of [
        '/api/v1/namespaces/made-here',
        '/api/v1/namespaces/default/configmaps/in-default',
        '/apis/rbac.authorization.k8s.io/v1/clusterroles/made-here',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.shared.kop.dev',
      ])
        expect(await missing(after, path), path).toBe(true);
      // What the plane started with is still there.
      expect(await missing(after, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.test.kop.dev')).toBe(
        false,
      );
      expect(await missing(after, '/api/v1/namespaces/default/services/kubernetes')).toBe(false);
      expect(await missing(after, '/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin')).toBe(false);
      // The same names can be made again, the CRD the last lease installed too (as files that install theirs do).
      await after.post('/api/v1/namespaces', { metadata: { name: 'made-here' } });
      await second.plane.installCRDs([gizmoCrd]);
      await after.post('/apis/shared.kop.dev/v1/namespaces/made-here/gizmos', {
        apiVersion: 'shared.kop.dev/v1',
        kind: 'Gizmo',
        metadata: { name: 'g' },
      });
    } finally {
      after.close();
      await second.release();
    }
  });

  it('give two leases held at once two planes', async () => {
    const [a, b] = await Promise.all([
      acquireSharedControlPlane(broker.address),
      acquireSharedControlPlane(broker.address),
    ]);
    try {
      expect(a.plane.server).not.toBe(b.plane.server);
    } finally {
      await Promise.all([a.release(), b.release()]);
    }
  });

  it('replace a plane whose starting CRD was changed, and stop every plane on close', async () => {
    // Both planes leased, so the next lease finds none idle and waits for the changed one's reset.
    const [lease, other] = await Promise.all([
      acquireSharedControlPlane(broker.address),
      acquireSharedControlPlane(broker.address),
    ]);
    const rest = admin(lease.plane);
    const { server, dir } = lease.plane;
    const started = broker.started;
    try {
      await rest.patch(
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.test.kop.dev',
        { metadata: { labels: { changed: 'yes' } } },
        'application/merge-patch+json',
      );
    } finally {
      rest.close();
      await lease.release();
    }
    const next = await acquireSharedControlPlane(broker.address);
    const dirs = [other.plane.dir, next.plane.dir];
    try {
      expect([server, other.plane.server]).not.toContain(next.plane.server);
      expect(broker.started).toBe(started + 1);
      expect(existsSync(dir)).toBe(false);
    } finally {
      await Promise.all([next.release(), other.release()]);
    }
    await broker.close();
    for (const stopped of dirs) expect(existsSync(stopped)).toBe(false);
    await expect(acquireSharedControlPlane(broker.address)).rejects.toThrow();
  });
});
