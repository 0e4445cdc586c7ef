import { copyFile, readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../src/testing/index.js';
import { findControlPlaneBinaries, startControlPlane } from '../../../src/testing/index.js';
import { initLinkedProject, KOP_BIN, KOP_ROOT } from '../../helpers/cli-project.js';
import { waitFor } from './helpers.js';

/**
 * kop's RedisCluster example (examples/redis-operator) built from scratch with the CLI and run
 * against a real control plane: it owns a StatefulSet and a Service, copies ready replicas into
 * status, and `kubectl scale` works through the scale subresource. The control plane has no
 * controller-manager, so the test plays the StatefulSet controller by writing its status.
 */
const EXAMPLE = path.join(KOP_ROOT, 'examples/redis-operator');
const TIMEOUT = 180_000;

interface Json {
  [key: string]: unknown;
}

describe('the RedisCluster example operator', () => {
  let parent: string;
  let project: string;
  let plane: ControlPlane | undefined;
  let manager: ResultPromise | undefined;
  const run = (file: string, args: string[], input?: string) =>
    execa(file, args, { cwd: project, reject: false, stdin: input === undefined ? 'ignore' : undefined, input, env: { NO_COLOR: '1', CI: 'true' } });
  const kop = (args: string[]) => run('node', [KOP_BIN, ...args]);

  beforeAll(async () => {
    ({ parent, project } = await initLinkedProject('redis-operator', 'kop-e2e-redis-'));
  }, TIMEOUT);

  afterAll(async () => {
    manager?.kill('SIGKILL');
    await plane?.stop();
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it('owns a StatefulSet and a Service, reports ready replicas, and scales with kubectl', async () => {
    const api = await kop(['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'RedisCluster', '--yes']);
    expect(api.exitCode, api.stderr).toBe(0);
    for (const file of ['api/cache/v1alpha1/rediscluster.types.ts', 'src/controllers/rediscluster.controller.ts']) {
      await copyFile(path.join(EXAMPLE, file), path.join(project, file));
    }
    // The scaffolded test exercises the scaffolded reconciler; this example is tested here.
    await rm(path.join(project, 'test/controllers/rediscluster.controller.test.ts'));
    const generate = await kop(['generate']);
    expect(generate.exitCode, generate.stderr + generate.stdout).toBe(0);
    const role = await readFile(path.join(project, 'config/rbac/role.yaml'), 'utf8');
    expect(role).toContain('statefulsets');
    const build = await run('npm', ['run', 'build']);
    expect(build.exitCode, build.stdout + build.stderr).toBe(0);

    plane = await startControlPlane({ crds: [path.join(project, 'config/crd/bases')] });
    const kubectl = (args: string[], input?: string) => run(findControlPlaneBinaries().kubectl!, ['--kubeconfig', plane!.kubeconfigPath, '-n', 'default', ...args], input);
    const getJson = async (what: string): Promise<Json | undefined> => {
      const got = await kubectl(['get', what, '-o', 'json']);
      return got.exitCode === 0 ? (JSON.parse(got.stdout) as Json) : undefined;
    };

    manager = execa('node', ['dist/src/main.js', '--kubeconfig', plane.kubeconfigPath, '--metrics-bind-address', '0', '--health-probe-bind-address', '0'], {
      cwd: project,
      reject: false,
      stdin: 'ignore',
    });
    let logs = '';
    manager.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    manager.stderr!.on('data', (chunk: Buffer) => (logs += chunk.toString()));

    const applied = await kubectl(['apply', '-f', '-'], 'apiVersion: cache.example.com/v1alpha1\nkind: RedisCluster\nmetadata:\n  name: cache\nspec:\n  replicas: 3\n');
    expect(applied.exitCode, applied.stderr).toBe(0);
    const cluster = (await waitFor(() => getJson('redisclusters.cache.example.com/cache'), 10_000)) as { metadata: { uid: string } };

    const sts = (await waitFor(() => getJson('statefulsets/cache'), 20_000, `StatefulSet (logs:\n${logs})`)) as {
      metadata: { ownerReferences: unknown[] };
      spec: { replicas: number; serviceName: string };
    };
    expect(sts.spec).toMatchObject({ replicas: 3, serviceName: 'cache' });
    const ownerRef = { apiVersion: 'cache.example.com/v1alpha1', kind: 'RedisCluster', name: 'cache', uid: cluster.metadata.uid, controller: true, blockOwnerDeletion: true };
    expect(sts.metadata.ownerReferences).toEqual([ownerRef]);
    const svc = (await waitFor(() => getJson('services/cache'), 10_000)) as { metadata: { ownerReferences: unknown[] }; spec: { clusterIP: string } };
    expect(svc.spec.clusterIP).toBe('None');
    expect(svc.metadata.ownerReferences).toEqual([ownerRef]);

    const clusterStatus = async () => ((await getJson('redisclusters.cache.example.com/cache')) as { status?: { readyReplicas?: number; conditions?: Array<{ type: string; status: string }> } }).status;
    await waitFor(async () => (await clusterStatus())?.conditions?.find((c) => c.type === 'Ready')?.status === 'False', 10_000, 'Ready False at first');

    // Play the StatefulSet controller: three pods ready. The owner is reconciled and copies it.
    const ready = (n: number) =>
      kubectl(['patch', 'statefulset', 'cache', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { replicas: n, readyReplicas: n, availableReplicas: n } })]);
    expect((await ready(3)).exitCode).toBe(0);
    await waitFor(async () => {
      const status = await clusterStatus();
      return status?.readyReplicas === 3 && status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    }, 10_000, 'readyReplicas 3 and Ready');

    // kubectl scale goes through the scale subresource of the CRD.
    const scaled = await kubectl(['scale', 'redisclusters.cache.example.com/cache', '--replicas=5']);
    expect(scaled.exitCode, scaled.stderr).toBe(0);
    await waitFor(async () => ((await getJson('statefulsets/cache')) as { spec: { replicas: number } }).spec.replicas === 5, 10_000, 'StatefulSet scaled to 5');
    const scale = JSON.parse((await kubectl(['get', '--raw', '/apis/cache.example.com/v1alpha1/namespaces/default/redisclusters/cache/scale'])).stdout) as { spec: { replicas: number }; status: { replicas: number; selector: string } };
    expect(scale.spec.replicas).toBe(5);
    expect(scale.status).toEqual({ replicas: 3, selector: 'app.kubernetes.io/name=redis,app.kubernetes.io/instance=cache' });

    const deleted = await kubectl(['delete', 'redisclusters.cache.example.com/cache', '--wait=true', '--timeout=30s']);
    expect(deleted.exitCode, deleted.stderr + logs).toBe(0);
    manager.kill('SIGTERM');
    expect((await manager).exitCode, logs).toBe(0);
  }, TIMEOUT);
});
