import { readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import * as path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../src/testing/index.js';
import { findControlPlaneBinaries, startControlPlane } from '../../../src/testing/index.js';
import { initLinkedProject, KOP_BIN } from '../../helpers/cli-project.js';
import { waitFor, writeTokenKubeconfig } from './helpers.js';

/**
 * As a new user would: `kop init`, `kop create api` for RedisCluster, `kop generate`, build, then
 * the manager started as `npm start -- --kubeconfig <file>` runs it, against a real control plane reconciles config/samples to
 * Ready, deleting the sample completes (the finalizer is removed), and SIGTERM stops it with exit 0.
 * kop is linked into the project's node_modules (no registry). Needs `npm run build` first.
 */
const TIMEOUT = 180_000;

describe('a scaffolded operator, end to end', () => {
  let parent: string;
  let project: string;
  let plane: ControlPlane | undefined;
  let manager: ResultPromise | undefined;
  const run = (file: string, args: string[]) => {
    return execa(file, args, { cwd: project, reject: false, stdin: 'ignore', env: { NO_COLOR: '1', CI: 'true' } });
  };
  const kop = (args: string[]) => run('node', [KOP_BIN, ...args]);
  /** Starts the built manager (what `npm start --` runs, minus npm, so SIGTERM reaches it); its output collects in `text`. */
  const startManager = (args: string[]): { text: string } => {
    const output = { text: '' };
    manager = execa(
      'node',
      [
        '--max-semi-space-size=1',
        'dist/src/main.js',
        ...args,
        '--metrics-bind-address',
        '127.0.0.1:0',
        '--health-probe-bind-address',
        '127.0.0.1:0',
      ],
      {
        cwd: project,
        reject: false,
        stdin: 'ignore',
        env: { NO_COLOR: '1' },
      },
    );
    manager.stdout!.on('data', (chunk: Buffer) => (output.text += chunk.toString()));
    manager.stderr!.on('data', (chunk: Buffer) => (output.text += chunk.toString()));
    return output;
  };

  beforeAll(async () => {
    ({ parent, project } = await initLinkedProject('redis-operator', 'kop-e2e-operator-'));
  }, TIMEOUT);

  afterAll(async () => {
    manager?.kill('SIGKILL');
    await plane?.stop();
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'npm start reconciles the sample to Ready, deletion completes, SIGTERM exits 0',
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
      expect(
        await import('node:fs/promises').then((fs) => fs.readFile(path.join(project, 'config/rbac/role.yaml'), 'utf8')),
      ).toMatch(/redisclusters\/finalizers[^]*events\.k8s\.io|events\.k8s\.io[^]*redisclusters\/finalizers/);
      const build = await run('npm', ['run', 'build']);
      expect(build.exitCode, build.stdout + build.stderr).toBe(0);

      // A missing kubeconfig is one clear log line and exit 1, not a stack trace.
      const missing = await run('node', ['dist/src/main.js', '--kubeconfig', path.join(parent, 'missing.kubeconfig')]);
      expect(missing.exitCode).toBe(1);
      const lines = `${missing.stdout}\n${missing.stderr}`.split('\n').filter((line) => line.trim() !== '');
      expect(lines.at(-1)).toMatch(
        /"level":"error","msg":"cannot set up the controllers".*missing\.kubeconfig does not exist/,
      );
      expect(missing.stderr).not.toMatch(/^\s+at /m);

      plane = await startControlPlane({ crds: [path.join(project, 'config/crd/bases')] });
      const kubectl = (args: string[]) =>
        run(findControlPlaneBinaries().kubectl!, ['--kubeconfig', plane!.kubeconfigPath, ...args]);

      // What `npm start --` runs (startManager runs the same), without npm in between so SIGTERM reaches the manager.
      expect(
        JSON.parse(
          await import('node:fs/promises').then((fs) => fs.readFile(path.join(project, 'package.json'), 'utf8')),
        ).scripts.start,
      ).toBe('node --max-semi-space-size=1 dist/src/main.js');
      const output = startManager(['--kubeconfig', plane.kubeconfigPath]);
      const probes = await waitFor(
        () => /"msg":"serving health probes".*"port":(\d+)/.exec(output.text)?.[1],
        30_000,
        'probe server',
      );
      await waitFor(async () => (await fetch(`http://127.0.0.1:${probes}/readyz`)).ok, 30_000, 'readyz');

      const applied = await kubectl(['apply', '-k', 'config/samples']);
      expect(applied.exitCode, applied.stderr).toBe(0);
      const ready = await waitFor(
        async () => {
          const got = await kubectl([
            'get',
            'redisclusters.cache.example.com',
            'rediscluster-sample',
            '-n',
            'default',
            '-o',
            'json',
          ]);
          const object = JSON.parse(got.stdout || '{}') as {
            status?: { conditions?: Array<{ type: string; status: string; observedGeneration?: number }> };
            metadata?: { generation?: number; finalizers?: string[] };
          };
          const condition = object.status?.conditions?.find((c) => c.type === 'Ready');
          return condition?.status === 'True' ? { object, condition } : undefined;
        },
        30_000,
        `sample Ready (manager logs:\n${output.text})`,
      );
      expect(ready.condition.observedGeneration).toBe(ready.object.metadata?.generation);
      expect(ready.object.metadata?.finalizers).toEqual(['cache.example.com/finalizer']);
      expect(output.text).toMatch(/"controller":"rediscluster"/);

      const deleted = await kubectl(['delete', '-k', 'config/samples', '--wait=true', '--timeout=30s']);
      expect(deleted.exitCode, deleted.stderr + output.text).toBe(0);
      const gone = await kubectl(['get', 'redisclusters.cache.example.com', 'rediscluster-sample', '-n', 'default']);
      expect(gone.stderr).toContain('NotFound');
      expect(output.text).toMatch(/"msg":"finalized".*"key":"default\/rediscluster-sample"/);

      manager!.kill('SIGTERM');
      const exit = await manager!;
      expect(exit.exitCode, output.text).toBe(0);
      expect(output.text).toContain('"msg":"manager stopped"');
    },
    TIMEOUT,
  );

  // Runs after the test above, on its built project and control plane.
  it(
    '`kubectl apply -k config/default` deploys; the pod template passes restricted Pod Security; the manager runs on its own RBAC alone',
    async () => {
      expect(plane, 'the previous test started the control plane').toBeDefined();
      const kubectl = (args: string[], input?: string) =>
        execa(findControlPlaneBinaries().kubectl!, ['--kubeconfig', plane!.kubeconfigPath, ...args], {
          cwd: project,
          reject: false,
          input,
          env: { NO_COLOR: '1' },
        });
      const namespace = 'redis-operator-system';
      const serviceAccount = 'redis-operator-controller-manager';

      const deployed = await kubectl(['apply', '-k', 'config/default']);
      expect(deployed.exitCode, deployed.stderr).toBe(0);
      // The namespace enforces restricted; a Deployment whose pods would break it draws a warning.
      expect(deployed.stderr).not.toMatch(/PodSecurity/);

      // No kubelet runs here, so make the Deployment's pod by hand (server dry run): admitted as is,
      // and refused once it asks for the host network, which shows the namespace really enforces.
      const deployment = JSON.parse(
        (await kubectl(['get', 'deployment', `${serviceAccount}`, '-n', namespace, '-o', 'json'])).stdout,
      ) as {
        spec: { template: { spec: { containers: Array<{ securityContext?: Record<string, unknown> }> } } };
      };
      const pod = (spec: unknown) =>
        JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'manager-template', namespace }, spec });
      const admitted = await kubectl(['create', '--dry-run=server', '-f', '-'], pod(deployment.spec.template.spec));
      expect(admitted.exitCode, admitted.stderr).toBe(0);
      expect(admitted.stderr).not.toMatch(/PodSecurity/);
      const refused = await kubectl(
        ['create', '--dry-run=server', '-f', '-'],
        pod({ ...deployment.spec.template.spec, hostNetwork: true }),
      );
      expect(refused.exitCode).not.toBe(0);
      expect(refused.stderr).toMatch(/violates PodSecurity "restricted/);

      // Least privilege, and enough: the service account may not read Secrets, yet the manager
      // (leader election on) reconciles the sample with nothing but that account's token.
      const canI = async (verb: string, resource: string, ns?: string) =>
        (
          await kubectl([
            'auth',
            'can-i',
            verb,
            resource,
            `--as=system:serviceaccount:${namespace}:${serviceAccount}`,
            ...(ns ? ['-n', ns] : []),
          ])
        ).stdout.trim();
      expect(await canI('list', 'redisclusters.cache.example.com')).toBe('yes');
      expect(await canI('get', 'secrets', 'default')).toBe('no');
      expect(await canI('create', 'leases.coordination.k8s.io', namespace)).toBe('yes');
      expect(await canI('create', 'leases.coordination.k8s.io', 'default')).toBe('no');
      const token = await kubectl(['create', 'token', serviceAccount, '-n', namespace]);
      expect(token.exitCode, token.stderr).toBe(0);
      const kubeconfigPath = path.join(parent, 'service-account.kubeconfig');
      await writeTokenKubeconfig(kubeconfigPath, plane!, token.stdout.trim(), namespace);
      const output = startManager(['--kubeconfig', kubeconfigPath, '--leader-elect']);

      const applied = await kubectl(['apply', '-k', 'config/samples']);
      expect(applied.exitCode, applied.stderr).toBe(0);
      await waitFor(
        async () => {
          const got = await kubectl([
            'get',
            'redisclusters.cache.example.com',
            'rediscluster-sample',
            '-n',
            'default',
            '-o',
            'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
          ]);
          return got.stdout === 'True' ? true : undefined;
        },
        60_000,
        `sample Ready with the service account's rights (manager logs:\n${output.text})`,
      );
      const lease = await kubectl([
        'get',
        'leases.coordination.k8s.io',
        '-n',
        namespace,
        '-o',
        'jsonpath={.items[*].spec.holderIdentity}',
      ]);
      expect(lease.stdout, lease.stderr).not.toBe('');
      // Secure metrics with the deployed RBAC: the manager reviews tokens with its own account's
      // rights (metrics-auth-role), and only a subject of metrics-reader may read.
      const metricsPort = await waitFor(
        () => /"msg":"serving metrics".*"port":(\d+).*"secure":true/.exec(output.text)?.[1],
        10_000,
        'metrics server',
      );
      expect((await kubectl(['create', 'serviceaccount', 'scraper', '-n', 'default'])).exitCode).toBe(0);
      const bound = await kubectl([
        'create',
        'clusterrolebinding',
        'scraper-metrics',
        '--clusterrole=redis-operator-metrics-reader',
        '--serviceaccount=default:scraper',
      ]);
      expect(bound.exitCode, bound.stderr).toBe(0);
      const scraperToken = (await kubectl(['create', 'token', 'scraper', '-n', 'default'])).stdout.trim();
      expect(await scrapeMetrics(Number(metricsPort), scraperToken)).toMatchObject({
        status: 200,
        body: expect.stringContaining('controller_runtime_reconcile_total{controller="rediscluster"'),
      });
      expect((await scrapeMetrics(Number(metricsPort), token.stdout.trim())).status).toBe(403);
      expect((await scrapeMetrics(Number(metricsPort))).status).toBe(401);

      const deleted = await kubectl(['delete', '-k', 'config/samples', '--wait=true', '--timeout=30s']);
      expect(deleted.exitCode, deleted.stderr + output.text).toBe(0);
      expect(output.text).not.toMatch(/forbidden/i);

      manager!.kill('SIGTERM');
      expect((await manager!).exitCode, output.text).toBe(0);
      expect(JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')).scripts.deploy).toBe(
        'kop generate manifests && kop deploy',
      );
    },
    TIMEOUT,
  );

  // Runs after the tests above, on their project and control plane.
  it(
    'exits 3 when --graceful-shutdown-timeout passes with a reconcile still running',
    async () => {
      expect(plane, 'the first test started the control plane').toBeDefined();
      const controller = path.join(project, 'src/controllers/rediscluster.controller.ts');
      const source = await readFile(controller, 'utf8');
      const hook = '    // setControllerReference() from kop/runtime, then describe the outcome below.\n';
      expect(source).toContain(hook);
      // A reconcile that ignores its signal and outlives any deadline, for objects annotated so.
      await writeFile(
        controller,
        source.replace(
          hook,
          `${hook}    if (object.metadata?.annotations?.['kop.test/hang']) {\n      console.log('hanging');\n      await new Promise((resolve) => setTimeout(resolve, 120_000));\n    }\n`,
        ),
      );
      const build = await run('npm', ['run', 'build']);
      expect(build.exitCode, build.stdout + build.stderr).toBe(0);
      const kubectl = (args: string[], input?: string) =>
        execa(findControlPlaneBinaries().kubectl!, ['--kubeconfig', plane!.kubeconfigPath, ...args], {
          reject: false,
          input,
        });

      const output = startManager(['--kubeconfig', plane!.kubeconfigPath, '--graceful-shutdown-timeout=1s']);
      const created = await kubectl(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'cache.example.com/v1alpha1',
          kind: 'RedisCluster',
          metadata: { name: 'stuck', namespace: 'default', annotations: { 'kop.test/hang': 'true' } },
          spec: {},
        }),
      );
      expect(created.exitCode, created.stderr).toBe(0);
      await waitFor(
        () => output.text.includes('hanging'),
        30_000,
        `the reconcile to start (manager logs:\n${output.text})`,
      );
      const signalledAt = Date.now();
      manager!.kill('SIGTERM');
      const exit = await manager!;
      expect(exit.exitCode, output.text).toBe(3);
      expect(Date.now() - signalledAt).toBeLessThan(15_000);
      expect(output.text).toMatch(
        /"level":"error","msg":"manager stopped, abandoning reconciles in flight".*"abandoned":\[\{"controller":"rediscluster","reconciles":1\}\]/,
      );
    },
    TIMEOUT,
  );
});

/** GETs /metrics over HTTPS on 127.0.0.1 (the certificate is self-signed: not verified here). */
function scrapeMetrics(port: number, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port,
          path: '/metrics',
          rejectUnauthorized: false,
          headers: token ? { authorization: `Bearer ${token}` } : {},
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      )
      .on('error', reject);
  });
}
