import { rm } from 'node:fs/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../../src/runtime/client/index.js';
import { startControlPlane } from '../../src/testing/index.js';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * What a new user does, through the built CLI: `init` → `create api` (two versions of a kind) →
 * `create webhook --defaulting --programmatic-validation --conversion --spoke <other>` →
 * `generate` → `npm test`. The scaffolded project passes `tsc --strict`, and its generated
 * tests prove defaulting, validation and conversion through a real apiserver calling the
 * manager's webhook server. Then the same tests pass twice in a row on a cluster that outlives
 * them (USE_EXISTING_CLUSTER=true), as a user reruns them against a kind cluster. Needs
 * `npm run build` and `kop setup-envtest` first.
 */
const TIMEOUT = 240_000;

describe('kop create webhook end to end', () => {
  let parent: string;
  let project: string;
  const run = (file: string, args: string[]) =>
    execa(file, args, { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
  const kop = (args: string[]) => run('node', [KOP_BIN, ...args]);

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/runtime/webhook/index.js', 'dist/testing/index.js']);
    ({ parent, project } = await initLinkedProject('demo', 'kop-e2e-webhook-'));
  }, TIMEOUT);
  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'scaffolds, generates, type-checks and passes its own webhook tests against the apiserver',
    async () => {
      for (const args of [
        ['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'RedisCluster', '--yes'],
        [
          'create',
          'api',
          '--group',
          'cache',
          '--version',
          'v1alpha1',
          '--kind',
          'RedisCluster',
          '--no-controller',
          '--yes',
        ],
      ]) {
        const created = await kop(args);
        expect(created.exitCode, created.stderr).toBe(0);
      }
      const webhook = await kop([
        'create',
        'webhook',
        '--group',
        'cache',
        '--version',
        'v1',
        '--kind',
        'RedisCluster',
        '--defaulting',
        '--programmatic-validation',
        '--conversion',
        '--spoke',
        'v1alpha1',
      ]);
      expect(webhook.exitCode, webhook.stderr).toBe(0);
      expect(webhook.stdout).toMatch(/CREATE src\/webhooks\/cache\/v1\/rediscluster\.defaulter\.ts/);
      const again = await kop([
        'create',
        'webhook',
        '--group',
        'cache',
        '--version',
        'v1',
        '--kind',
        'RedisCluster',
        '--defaulting',
      ]);
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toMatch(/already has a defaulting webhook[^]*hint: pass --force/);

      const generate = await kop(['generate']);
      expect(generate.exitCode, generate.stderr + generate.stdout).toBe(0);
      expect(generate.stdout).toContain('CREATE config/crd/patches/webhook_in_redisclusters.yaml');
      expect(generate.stdout).toContain('CREATE config/webhook/manifests.yaml');

      const checked = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);

      // `npm test` as a user runs it (it regenerates first), all of it: flags, reconciler and webhooks.
      const test = await run('npm', ['test']);
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toMatch(/rediscluster\.defaulter\.test\.ts/);
      expect(test.stdout).toMatch(/rediscluster\.validator\.test\.ts/);
      expect(test.stdout).toMatch(/rediscluster\.conversion\.test\.ts/);
      expect(test.stdout).not.toMatch(/skipped/);
    },
    TIMEOUT,
  );

  it(
    'passes its tests again and again on an existing cluster (USE_EXISTING_CLUSTER=true)',
    async () => {
      const cluster = await startControlPlane({});
      const rest = RestClient.load({ kubeconfig: cluster.kubeconfigPath });
      try {
        const env = { NO_COLOR: '1', CI: 'true', USE_EXISTING_CLUSTER: 'true', KUBECONFIG: cluster.kubeconfigPath };
        for (const round of [1, 2]) {
          const test = await execa('npm', ['test'], { cwd: project, reject: false, env });
          expect(test.exitCode, `round ${round}\n${test.stdout}\n${test.stderr}`).toBe(0);
          expect(test.stdout).toMatch(/rediscluster\.controller\.test\.ts/);
        }
        // The tests ran on this cluster (their CRD stays, as it does in a cluster of yours), and
        // its webhook configurations were removed when they ended.
        const crd = await rest.get<{ metadata: { name: string } }>(
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/redisclusters.cache.example.com',
        );
        expect(crd.metadata.name).toBe('redisclusters.cache.example.com');
        for (const kind of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
          const list = await rest.get<{ items: unknown[] }>(`/apis/admissionregistration.k8s.io/v1/${kind}`);
          expect(list.items, kind).toEqual([]);
        }
      } finally {
        rest.close();
        await cluster.stop();
      }
    },
    TIMEOUT,
  );
});
