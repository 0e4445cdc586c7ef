import { copyFile, readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../src/testing/index.js';
import { findControlPlaneBinaries, startControlPlane } from '../../../src/testing/index.js';
import { initLinkedProject, KOP_BIN, KOP_ROOT } from '../../helpers/cli-project.js';
import { waitFor } from './helpers.js';
import { REDIS_EXAMPLE_COMMANDS } from '../../../hack/redis-example.mjs';

/**
 * kop's RedisCluster example (examples/redis-operator) built from scratch with the CLI and run
 * against a real control plane: it owns a StatefulSet and a Service, copies ready replicas into
 * status, and `kubectl scale` works through the scale subresource. Its webhooks run in the
 * manager and the apiserver calls them (kop/testing installs config/webhook and the conversion
 * patch pointed at the manager): the image is defaulted, an unpinned image refused, a shrink
 * warned about, and v1beta1 objects convert to and from the stored v1alpha1. The control plane
 * has no controller-manager, so the test plays the StatefulSet controller by writing its status.
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
    execa(file, args, {
      cwd: project,
      reject: false,
      stdin: input === undefined ? 'ignore' : undefined,
      input,
      env: { NO_COLOR: '1', CI: 'true' },
    });
  const kop = (args: string[]) => run('node', [KOP_BIN, ...args]);

  beforeAll(async () => {
    ({ parent, project } = await initLinkedProject('redis-operator', 'kop-e2e-redis-'));
  }, TIMEOUT);

  afterAll(async () => {
    manager?.kill('SIGKILL');
    await plane?.stop();
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'owns a StatefulSet and a Service, reports ready replicas, and scales with kubectl',
    async () => {
      for (const args of REDIS_EXAMPLE_COMMANDS) {
        const created = await kop([...args]);
        expect(created.exitCode, created.stderr).toBe(0);
      }
      for (const file of [
        'api/cache/v1alpha1/rediscluster.types.ts',
        'api/cache/v1beta1/rediscluster.types.ts',
        'src/controllers/rediscluster.controller.ts',
        'src/webhooks/cache/v1alpha1/rediscluster.defaulter.ts',
        'src/webhooks/cache/v1alpha1/rediscluster.validator.ts',
        'src/webhooks/cache/v1beta1/rediscluster.conversion.ts',
      ]) {
        await copyFile(path.join(EXAMPLE, file), path.join(project, file));
      }
      // The scaffolded tests exercise the scaffolded code; this example is tested here.
      for (const test of ['test/controllers', 'test/webhooks/cache'])
        await rm(path.join(project, test), { recursive: true });
      const generate = await kop(['generate']);
      expect(generate.exitCode, generate.stderr + generate.stdout).toBe(0);
      const role = await readFile(path.join(project, 'config/rbac/role.yaml'), 'utf8');
      expect(role).toContain('statefulsets');
      const build = await run('npm', ['run', 'build']);
      expect(build.exitCode, build.stdout + build.stderr).toBe(0);

      plane = await startControlPlane({
        crds: [path.join(project, 'config/crd/bases')],
        webhooks: {
          paths: [path.join(project, 'config/webhook')],
          conversionPatches: [path.join(project, 'config/crd/patches')],
        },
      });
      const serving = plane.webhook!;
      const kubectl = (args: string[], input?: string) =>
        run(
          findControlPlaneBinaries().kubectl!,
          ['--kubeconfig', plane!.kubeconfigPath, '-n', 'default', ...args],
          input,
        );
      const getJson = async (what: string): Promise<Json | undefined> => {
        const got = await kubectl(['get', what, '-o', 'json']);
        return got.exitCode === 0 ? (JSON.parse(got.stdout) as Json) : undefined;
      };

      const webhookFlags = ['--webhook-port', String(serving.port), '--webhook-cert-path', serving.certDir];
      manager = execa(
        'node',
        [
          'dist/src/main.js',
          '--kubeconfig',
          plane.kubeconfigPath,
          '--metrics-bind-address',
          '0',
          '--health-probe-bind-address',
          '0',
          ...webhookFlags,
        ],
        {
          cwd: project,
          reject: false,
          stdin: 'ignore',
        },
      );
      let logs = '';
      manager.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
      manager.stderr!.on('data', (chunk: Buffer) => (logs += chunk.toString()));

      // The apiserver refuses writes while the webhooks do not answer: wait for the manager's server.
      const applyCache = () =>
        kubectl(
          ['apply', '-f', '-'],
          'apiVersion: cache.example.com/v1alpha1\nkind: RedisCluster\nmetadata:\n  name: cache\nspec:\n  replicas: 3\n',
        );
      const applied = await waitFor(
        async () => {
          const attempt = await applyCache();
          return attempt.exitCode === 0 ? attempt : undefined;
        },
        20_000,
        `the webhooks to answer (logs:\n${logs})`,
      );
      expect(applied.exitCode, applied.stderr).toBe(0);
      // Defaulting: the image the spec left out is pinned in it.
      expect(
        ((await getJson('redisclusters.v1alpha1.cache.example.com/cache')) as { spec: { image?: string } }).spec.image,
      ).toBe('redis:7.4');
      // Validation: an unpinned image is refused with the validator's field error.
      const unpinned = await kubectl(
        ['apply', '-f', '-'],
        'apiVersion: cache.example.com/v1alpha1\nkind: RedisCluster\nmetadata:\n  name: bad\nspec:\n  replicas: 1\n  image: redis:latest\n',
      );
      expect(unpinned.exitCode).not.toBe(0);
      // kubectl prints a 422 Invalid denial as it prints the apiserver's own validation errors.
      expect(unpinned.stderr).toMatch(
        /The RedisCluster "bad" is invalid: spec\.image: Invalid value: "redis:latest": pin a tag other than latest/,
      );
      // Conversion: the stored v1alpha1 object read as v1beta1, and a v1beta1 object read as v1alpha1.
      const asBeta = (await getJson('redisclusters.v1beta1.cache.example.com/cache')) as {
        apiVersion: string;
        spec: unknown;
      };
      expect(asBeta).toMatchObject({
        apiVersion: 'cache.example.com/v1beta1',
        spec: { size: 3, redis: { image: 'redis:7.4' } },
      });
      const beta = await kubectl(
        ['apply', '-f', '-'],
        'apiVersion: cache.example.com/v1beta1\nkind: RedisCluster\nmetadata:\n  name: beta\nspec:\n  size: 2\n  redis:\n    image: redis:7.2\n',
      );
      expect(beta.exitCode, beta.stderr).toBe(0);
      expect(((await getJson('redisclusters.v1alpha1.cache.example.com/beta')) as { spec: unknown }).spec).toEqual({
        replicas: 2,
        image: 'redis:7.2',
      });
      expect(((await getJson('redisclusters.v1beta1.cache.example.com/beta')) as { spec: unknown }).spec).toEqual({
        size: 2,
        redis: { image: 'redis:7.2' },
      });
      expect(
        (await kubectl(['delete', 'redisclusters.v1beta1.cache.example.com/beta', '--wait=true', '--timeout=30s']))
          .exitCode,
      ).toBe(0);
      const cluster = (await waitFor(() => getJson('redisclusters.cache.example.com/cache'), 10_000)) as {
        metadata: { uid: string };
      };

      const sts = (await waitFor(() => getJson('statefulsets/cache'), 20_000, `StatefulSet (logs:\n${logs})`)) as {
        metadata: { ownerReferences: unknown[] };
        spec: { replicas: number; serviceName: string };
      };
      expect(sts.spec).toMatchObject({ replicas: 3, serviceName: 'cache' });
      const ownerRef = {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'RedisCluster',
        name: 'cache',
        uid: cluster.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      };
      expect(sts.metadata.ownerReferences).toEqual([ownerRef]);
      const svc = (await waitFor(() => getJson('services/cache'), 10_000)) as {
        metadata: { ownerReferences: unknown[] };
        spec: { clusterIP: string };
      };
      expect(svc.spec.clusterIP).toBe('None');
      expect(svc.metadata.ownerReferences).toEqual([ownerRef]);

      const clusterStatus = async () =>
        (
          (await getJson('redisclusters.cache.example.com/cache')) as {
            status?: { readyReplicas?: number; conditions?: Array<{ type: string; status: string }> };
          }
        ).status;
      await waitFor(
        async () => (await clusterStatus())?.conditions?.find((c) => c.type === 'Ready')?.status === 'False',
        10_000,
        'Ready False at first',
      );

      // Play the StatefulSet controller: three pods ready. The owner is reconciled and copies it.
      const ready = (n: number) =>
        kubectl([
          'patch',
          'statefulset',
          'cache',
          '--subresource=status',
          '--type=merge',
          '-p',
          JSON.stringify({ status: { replicas: n, readyReplicas: n, availableReplicas: n } }),
        ]);
      expect((await ready(3)).exitCode).toBe(0);
      await waitFor(
        async () => {
          const status = await clusterStatus();
          return status?.readyReplicas === 3 && status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        },
        10_000,
        'readyReplicas 3 and Ready',
      );

      // kubectl scale goes through the scale subresource of the CRD.
      const scaled = await kubectl(['scale', 'redisclusters.cache.example.com/cache', '--replicas=5']);
      expect(scaled.exitCode, scaled.stderr).toBe(0);
      await waitFor(
        async () => ((await getJson('statefulsets/cache')) as { spec: { replicas: number } }).spec.replicas === 5,
        10_000,
        'StatefulSet scaled to 5',
      );
      const scale = JSON.parse(
        (
          await kubectl([
            'get',
            '--raw',
            '/apis/cache.example.com/v1alpha1/namespaces/default/redisclusters/cache/scale',
          ])
        ).stdout,
      ) as {
        spec: { replicas: number };
        status: { replicas: number; selector: string };
      };
      expect(scale.spec.replicas).toBe(5);
      expect(scale.status).toEqual({
        replicas: 3,
        selector: 'app.kubernetes.io/name=redis,app.kubernetes.io/instance=cache',
      });

      // A shrink through the spec (not the scale subresource, which the webhooks do not cover) is admitted with a warning.
      const shrunk = await kubectl([
        'patch',
        'redisclusters.v1alpha1.cache.example.com/cache',
        '--type=merge',
        '-p',
        '{"spec":{"replicas":4}}',
      ]);
      expect(shrunk.exitCode, shrunk.stderr).toBe(0);
      expect(shrunk.stderr).toContain(
        'Warning: spec.replicas: scaling from 5 to 4 nodes removes the data of 1 of them',
      );

      const deleted = await kubectl([
        'delete',
        'redisclusters.cache.example.com/cache',
        '--wait=true',
        '--timeout=30s',
      ]);
      expect(deleted.exitCode, deleted.stderr + logs).toBe(0);
      manager.kill('SIGTERM');
      expect((await manager).exitCode, logs).toBe(0);
    },
    TIMEOUT,
  );
});
