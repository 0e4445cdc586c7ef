import { readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../src/testing/index.js';
import { findControlPlaneBinaries, startControlPlane } from '../../../src/testing/index.js';
import { initLinkedProject, KOP_BIN } from '../../helpers/cli-project.js';
import { waitFor, writeTokenKubeconfig } from './helpers.js';

/**
 * `kop init --namespaced`, as a new user would, deployed with `kubectl apply -k config/default`:
 * the manager, holding only its service account's token and the Roles generated from the
 * markers, reconciles the sample in its own namespace (WATCH_NAMESPACE) and leaves other
 * namespaces alone, without a single forbidden request. Needs `npm run build` first.
 */
const TIMEOUT = 180_000;
const NAMESPACE = 'shop-system';
const SERVICE_ACCOUNT = 'shop-controller-manager';
const CRD = 'redisclusters.cache.example.com';

describe('a namespaced operator, deployed with its own RBAC', () => {
  let parent: string;
  let project: string;
  let plane: ControlPlane | undefined;
  let manager: ResultPromise | undefined;
  const run = (file: string, args: string[], input?: string) =>
    execa(file, args, {
      cwd: project,
      reject: false,
      input,
      stdin: input === undefined ? 'ignore' : undefined,
      env: { NO_COLOR: '1', CI: 'true' },
    });
  const kop = (args: string[]) => run('node', [KOP_BIN, ...args]);
  const kubectl = (args: string[], input?: string) =>
    run(findControlPlaneBinaries().kubectl!, ['--kubeconfig', plane!.kubeconfigPath, ...args], input);

  beforeAll(async () => {
    ({ parent, project } = await initLinkedProject('shop', 'kop-e2e-namespaced-', ['--namespaced']));
  }, TIMEOUT);

  afterAll(async () => {
    manager?.kill('SIGKILL');
    await plane?.stop();
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'reconciles in WATCH_NAMESPACE only, with Roles instead of ClusterRoles',
    async () => {
      const api = await kop([
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'RedisCluster',
        '--yes',
      ]);
      expect(api.exitCode, api.stderr).toBe(0);
      const generate = await kop(['generate']);
      expect(generate.exitCode, generate.stderr + generate.stdout).toBe(0);
      const role = await readFile(path.join(project, 'config/rbac/role.yaml'), 'utf8');
      expect(role).toContain('kind: Role\n');
      expect(role).not.toContain('kind: ClusterRole');
      const build = await run('npm', ['run', 'build']);
      expect(build.exitCode, build.stdout + build.stderr).toBe(0);

      plane = await startControlPlane();
      const deployed = await kubectl(['apply', '-k', 'config/default']);
      expect(deployed.exitCode, deployed.stderr).toBe(0);
      const established = await kubectl(['wait', '--for=condition=Established', `crd/${CRD}`, '--timeout=30s']);
      expect(established.exitCode, established.stderr).toBe(0);

      const canI = async (verb: string, resource: string, ...scope: string[]) =>
        (
          await kubectl([
            'auth',
            'can-i',
            verb,
            resource,
            `--as=system:serviceaccount:${NAMESPACE}:${SERVICE_ACCOUNT}`,
            ...scope,
          ])
        ).stdout.trim();
      expect(await canI('watch', CRD, '-n', NAMESPACE)).toBe('yes');
      expect(await canI('watch', CRD, '-n', 'default')).toBe('no');
      expect(await canI('list', CRD, '--all-namespaces')).toBe('no');

      const token = await kubectl(['create', 'token', SERVICE_ACCOUNT, '-n', NAMESPACE]);
      expect(token.exitCode, token.stderr).toBe(0);
      const kubeconfigPath = path.join(parent, 'service-account.kubeconfig');
      await writeTokenKubeconfig(kubeconfigPath, plane, token.stdout.trim(), NAMESPACE);
      // What the Deployment gives the pod: WATCH_NAMESPACE from its own namespace.
      manager = execa(
        'node',
        [
          'dist/src/main.js',
          '--kubeconfig',
          kubeconfigPath,
          '--leader-elect',
          '--metrics-bind-address',
          '127.0.0.1:0',
          '--health-probe-bind-address',
          '127.0.0.1:0',
        ],
        { cwd: project, reject: false, stdin: 'ignore', env: { NO_COLOR: '1', WATCH_NAMESPACE: NAMESPACE } },
      );
      let logs = '';
      manager.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
      manager.stderr!.on('data', (chunk: Buffer) => (logs += chunk.toString()));

      const sample = await readFile(path.join(project, 'config/samples/cache_v1alpha1_rediscluster.yaml'), 'utf8');
      for (const namespace of ['default', NAMESPACE]) {
        const applied = await kubectl(['apply', '-n', namespace, '-f', '-'], sample);
        expect(applied.exitCode, applied.stderr).toBe(0);
      }
      const readyIn = async (namespace: string) =>
        (
          await kubectl([
            'get',
            CRD,
            'rediscluster-sample',
            '-n',
            namespace,
            '-o',
            'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
          ])
        ).stdout;
      await waitFor(
        async () => ((await readyIn(NAMESPACE)) === 'True' ? true : undefined),
        60_000,
        'the sample in the watched namespace Ready',
      );
      expect(logs).toMatch(/"msg":"watching one namespace".*"namespace":"shop-system"/);
      // The other namespace's sample was never touched: no status, no finalizer.
      const other = JSON.parse(
        (await kubectl(['get', CRD, 'rediscluster-sample', '-n', 'default', '-o', 'json'])).stdout,
      ) as {
        status?: unknown;
        metadata: { finalizers?: string[] };
      };
      expect(other.status).toBeUndefined();
      expect(other.metadata.finalizers).toBeUndefined();
      expect(logs).not.toContain('"namespace":"default"');

      const deleted = await kubectl([
        'delete',
        CRD,
        'rediscluster-sample',
        '-n',
        NAMESPACE,
        '--wait=true',
        '--timeout=30s',
      ]);
      expect(deleted.exitCode, deleted.stderr + logs).toBe(0);
      expect(logs).toMatch(/"msg":"finalized".*"key":"shop-system\/rediscluster-sample"/);
      expect(logs).not.toMatch(/forbidden/i);

      manager.kill('SIGTERM');
      expect((await manager).exitCode, logs).toBe(0);
    },
    TIMEOUT,
  );
});
