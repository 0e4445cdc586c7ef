import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../src/testing/index.js';
import { findControlPlaneBinaries, startControlPlane } from '../../../src/testing/index.js';
import { initLinkedProject, KOP_BIN } from '../../helpers/cli-project.js';
import { waitFor } from './helpers.js';

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

  beforeAll(async () => {
    ({ parent, project } = await initLinkedProject('redis-operator', 'kop-e2e-operator-'));
  }, TIMEOUT);

  afterAll(async () => {
    manager?.kill('SIGKILL');
    await plane?.stop();
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it('npm start reconciles the sample to Ready, deletion completes, SIGTERM exits 0', async () => {
    const api = await kop(['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'RedisCluster', '--yes']);
    expect(api.exitCode, api.stderr).toBe(0);
    const generate = await kop(['generate']);
    expect(generate.exitCode, generate.stderr + generate.stdout).toBe(0);
    expect(await import('node:fs/promises').then((fs) => fs.readFile(path.join(project, 'config/rbac/role.yaml'), 'utf8'))).toMatch(/redisclusters\/finalizers[^]*events\.k8s\.io|events\.k8s\.io[^]*redisclusters\/finalizers/);
    const build = await run('npm', ['run', 'build']);
    expect(build.exitCode, build.stdout + build.stderr).toBe(0);

    plane = await startControlPlane({ crds: [path.join(project, 'config/crd/bases')] });
    const kubectl = (args: string[]) => run(findControlPlaneBinaries().kubectl!, ['--kubeconfig', plane!.kubeconfigPath, ...args]);

    // What `npm start --` runs (node dist/src/main.js), without npm in between so SIGTERM reaches the manager.
    expect(JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(path.join(project, 'package.json'), 'utf8'))).scripts.start).toBe('node dist/src/main.js');
    manager = execa('node', ['dist/src/main.js', '--kubeconfig', plane.kubeconfigPath, '--metrics-bind-address', '127.0.0.1:0', '--health-probe-bind-address', '127.0.0.1:0'], {
      cwd: project,
      reject: false,
      stdin: 'ignore',
      env: { NO_COLOR: '1' },
    });
    let logs = '';
    manager.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    manager.stderr!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    const probes = await waitFor(() => /"msg":"serving health probes".*"port":(\d+)/.exec(logs)?.[1], 30_000, 'probe server');
    await waitFor(async () => (await fetch(`http://127.0.0.1:${probes}/readyz`)).ok, 30_000, 'readyz');

    const applied = await kubectl(['apply', '-k', 'config/samples']);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const ready = await waitFor(
      async () => {
        const got = await kubectl(['get', 'redisclusters.cache.example.com', 'rediscluster-sample', '-n', 'default', '-o', 'json']);
        const object = JSON.parse(got.stdout || '{}') as { status?: { conditions?: Array<{ type: string; status: string; observedGeneration?: number }> }; metadata?: { generation?: number; finalizers?: string[] } };
        const condition = object.status?.conditions?.find((c) => c.type === 'Ready');
        return condition?.status === 'True' ? { object, condition } : undefined;
      },
      30_000,
      `sample Ready (manager logs:\n${logs})`,
    );
    expect(ready.condition.observedGeneration).toBe(ready.object.metadata?.generation);
    expect(ready.object.metadata?.finalizers).toEqual(['cache.example.com/finalizer']);
    expect(logs).toMatch(/"controller":"rediscluster"/);

    const deleted = await kubectl(['delete', '-k', 'config/samples', '--wait=true', '--timeout=30s']);
    expect(deleted.exitCode, deleted.stderr + logs).toBe(0);
    const gone = await kubectl(['get', 'redisclusters.cache.example.com', 'rediscluster-sample', '-n', 'default']);
    expect(gone.stderr).toContain('NotFound');
    expect(logs).toMatch(/"msg":"finalized".*"key":"default\/rediscluster-sample"/);

    manager.kill('SIGTERM');
    const exit = await manager;
    expect(exit.exitCode, logs).toBe(0);
    expect(logs).toContain('"msg":"manager stopped"');
  }, TIMEOUT);
});
