import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiException, CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { apiRequest } from './helpers.js';

const CRD_FIXTURE = fileURLToPath(new URL('./fixtures/widgets-crd.yaml', import.meta.url));

describe('a started control plane', () => {
  let plane: ControlPlane;

  beforeAll(async () => {
    plane = await startControlPlane();
  });

  afterAll(async () => {
    await plane?.stop();
  });

  it('reports the pinned Kubernetes version on /version', async () => {
    const response = await apiRequest(plane, plane.admin, 'GET', '/version');
    expect(response.status).toBe(200);
    expect(response.json<{ gitVersion: string }>().gitVersion).toBe('v1.36.3');
  });

  it('writes an admin kubeconfig file that equals the kubeconfig object', () => {
    expect(parse(readFileSync(plane.kubeconfigPath, 'utf8'))).toEqual(plane.kubeconfig);
    expect(plane.kubeconfig.clusters[0]!.cluster.server).toBe(plane.server);
    expect(plane.admin.groups).toEqual(['system:masters']);
  });

  it('creates, gets, updates and deletes a ConfigMap as admin through @kubernetes/client-node', async () => {
    const config = new KubeConfig();
    config.loadFromFile(plane.kubeconfigPath);
    const core = config.makeApiClient(CoreV1Api);
    const namespace = 'default';
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'crud' }, data: { color: 'blue' } },
    });
    expect(created.metadata?.uid).toBeTruthy();

    const read = await core.readNamespacedConfigMap({ namespace, name: 'crud' });
    expect(read.data).toEqual({ color: 'blue' });

    const changed: V1ConfigMap = { ...read, data: { color: 'green' } };
    const updated = await core.replaceNamespacedConfigMap({ namespace, name: 'crud', body: changed });
    expect(updated.data).toEqual({ color: 'green' });
    expect(updated.metadata?.resourceVersion).not.toBe(read.metadata?.resourceVersion);

    await core.deleteNamespacedConfigMap({ namespace, name: 'crud' });
    const gone = await core.readNamespacedConfigMap({ namespace, name: 'crud' }).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(ApiException);
    expect((gone as ApiException<unknown>).code).toBe(404);
  });

  it('answers 403 to a user without RBAC rights, and 200 once a Role grants them', async () => {
    const alice = await plane.addUser({ name: 'alice', groups: ['qa'] });
    expect(alice.kubeconfig.users[0]!.name).toBe('alice');
    const denied = await apiRequest(plane, alice, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(denied.status).toBe(403);
    expect(denied.json<{ message: string }>().message).toContain('User "alice" cannot list resource "configmaps"');

    const role = {
      metadata: { name: 'read-configmaps' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
    };
    const binding = {
      metadata: { name: 'qa-reads-configmaps' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-configmaps' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'qa' }],
    };
    expect(
      (
        await apiRequest(
          plane,
          plane.admin,
          'POST',
          '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
          role,
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await apiRequest(
          plane,
          plane.admin,
          'POST',
          '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
          binding,
        )
      ).status,
    ).toBe(201);
    // RBAC is read from the apiserver's cache, so the grant shows up within moments.
    let allowed = 0;
    for (let attempt = 0; attempt < 100 && allowed !== 200; attempt++) {
      allowed = (await apiRequest(plane, alice, 'GET', '/api/v1/namespaces/default/configmaps')).status;
      if (allowed !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(allowed).toBe(200);
  });

  it('answers 409 Conflict to an update that carries a stale resourceVersion', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const created = await apiRequest(plane, plane.admin, 'POST', path, {
      metadata: { name: 'stale' },
      data: { n: '1' },
    });
    expect(created.status).toBe(201);
    const original = created.json<{ metadata: { resourceVersion: string } }>();
    const first = await apiRequest(plane, plane.admin, 'PUT', `${path}/stale`, { ...original, data: { n: '2' } });
    expect(first.status).toBe(200);
    const stale = await apiRequest(plane, plane.admin, 'PUT', `${path}/stale`, { ...original, data: { n: '3' } });
    expect(stale.status).toBe(409);
    expect(stale.json<{ reason: string }>().reason).toBe('Conflict');
  });

  it('answers a watch from a resourceVersion older than an etcd compaction with 410 Gone', async () => {
    // Events are not held in the apiserver's watch cache (its default), so a watch on them
    // reads etcd's history, as every resource's watch does once it falls out of the cache.
    const path = '/api/v1/namespaces/default/events';
    const event = {
      metadata: { name: 'history' },
      involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'anything' },
      reason: 'Testing',
      message: 'version 0',
    };
    const created = await apiRequest(plane, plane.admin, 'POST', path, event);
    expect(created.status).toBe(201);
    const oldVersion = created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    let current = created.json<Record<string, unknown>>();
    for (let n = 1; n <= 3; n++) {
      current = (
        await apiRequest(plane, plane.admin, 'PUT', `${path}/history`, { ...current, message: `version ${n}` })
      ).json();
    }

    const beforeCompaction = await apiRequest(
      plane,
      plane.admin,
      'GET',
      `${path}?watch=true&resourceVersion=${oldVersion}&timeoutSeconds=1`,
    );
    expect(beforeCompaction.status).toBe(200);
    expect(beforeCompaction.body).toContain('"type":"MODIFIED"');

    const revision = await plane.compactEtcd();
    expect(revision).toBeGreaterThan(Number(oldVersion));

    const watch = await apiRequest(
      plane,
      plane.admin,
      'GET',
      `${path}?watch=true&resourceVersion=${oldVersion}&timeoutSeconds=1`,
    );
    const status = watch.status === 410 ? watch.json<{ code: number; reason: string }>() : firstErrorEvent(watch.body);
    expect(status.code).toBe(410);
    expect(status.reason).toBe('Expired');
  });

  it('installs a CRD from a YAML file, waits until it is served, and the server applies its schema', async () => {
    const [crd] = await plane.installCRDs(CRD_FIXTURE);
    expect(crd!.metadata.name).toBe('widgets.testing.kop.dev');
    expect(crd!.status?.conditions?.find((condition) => condition.type === 'Established')?.status).toBe('True');

    const widgets = '/apis/testing.kop.dev/v1alpha1/namespaces/default/widgets';
    const body = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'testing.kop.dev/v1alpha1',
      kind: 'Widget',
      metadata: { name },
      spec,
    });

    const created = await apiRequest(
      plane,
      plane.admin,
      'POST',
      widgets,
      body('defaults', { size: 3, unknownField: true }),
    );
    expect(created.status).toBe(201);
    const spec = created.json<{ spec: Record<string, unknown> }>().spec;
    expect(spec).toEqual({ size: 3, maxSize: 10, color: 'green' }); // defaulted and pruned

    const tooSmall = await apiRequest(plane, plane.admin, 'POST', widgets, body('too-small', { size: 0 }));
    expect(tooSmall.status).toBe(422);
    expect(tooSmall.body).toContain('spec.size');

    const badColor = await apiRequest(
      plane,
      plane.admin,
      'POST',
      widgets,
      body('bad-color', { size: 1, color: 'pink' }),
    );
    expect(badColor.status).toBe(422);
    const causes = badColor.json<{ details: { causes: Array<{ reason: string; field: string }> } }>().details.causes;
    expect(causes).toContainEqual(expect.objectContaining({ reason: 'FieldValueNotSupported', field: 'spec.color' }));

    const celRule = await apiRequest(plane, plane.admin, 'POST', widgets, body('too-big', { size: 11 }));
    expect(celRule.status).toBe(422);
    expect(celRule.body).toContain('size must not exceed maxSize');

    // Installing the same CRD again replaces it rather than failing.
    await expect(plane.installCRDs([CRD_FIXTURE])).resolves.toHaveLength(1);
  });
});

// USE_EXISTING_CLUSTER mode: test/testing/existing-cluster.test.ts.

function firstErrorEvent(stream: string): { code: number; reason: string } {
  for (const line of stream.split('\n').filter(Boolean)) {
    const event = JSON.parse(line) as { type: string; object: { code: number; reason: string } };
    if (event.type === 'ERROR') return event.object;
  }
  throw new Error(`the watch returned no ERROR event: ${stream.slice(0, 500)}`);
}
