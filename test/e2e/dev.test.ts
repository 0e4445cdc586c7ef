import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findControlPlaneBinary, startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';

/**
 * `kop dev` through the built CLI, in a project made by `kop init` + `kop create api` (kop linked
 * into its node_modules): it starts kop/testing's control plane, installs the CRD, applies the
 * sample, runs the manager, which reconciles the sample to Ready; an edit of the reconciler is
 * running within seconds, a broken edit keeps the last good manager, an edit of the API type
 * reinstalls the CRD; SIGINT stops everything it started, checked by pid. Needs `npm run build`
 * and `kop setup-envtest` first.
 */
const TIMEOUT = 180_000;
const CONTROLLER = 'src/controllers/rediscluster.controller.ts';
const TYPES = 'api/cache/v1alpha1/rediscluster.types.ts';
const CRD_NAME = 'redisclusters.cache.example.com';

/** A running `kop dev`, its output as lines. */
interface DevRun {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first line from `from` on that matches, or fails after `timeoutMs` with the output. */
  waitForLine(pattern: RegExp, from?: number, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startDev(cwd: string, args: string[]): DevRun {
  const child = spawn(process.execPath, [KOP_BIN, 'dev', ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  const onData = (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    lines,
    exited,
    async waitForLine(pattern, from = 0, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = lines.slice(from).find((line) => pattern.test(line));
        if (found) return found;
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(
            `no line matching ${pattern} within ${timeoutMs} ms (exit ${child.exitCode}); output:\n${lines.join('\n')}`,
          );
        }
        await sleep(50);
      }
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Every live descendant of `pid` (children, their children, ...), read from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

/** Waits until none of `pids` is alive (zombies count as gone), failing with what is left. */
async function expectAllGone(pids: number[], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(alive) && Date.now() < deadline) await sleep(100);
  expect(pids.filter(alive).map((pid) => `${pid} ${commandLine(pid)}`)).toEqual([]);
}

/** `pgrep -f <pattern>`'s pids (none: pgrep exits 1). */
async function pgrep(pattern: string): Promise<number[]> {
  const result = await execa('pgrep', ['-f', pattern], { reject: false });
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

describe('kop dev end to end', () => {
  let parent: string;
  let project: string;
  let dev: DevRun | undefined;
  let plane: ControlPlane | undefined;
  let kubectlPath: string;
  const kubectl = (args: string[], kubeconfig = path.join(project, '.kop/dev/kubeconfig')) =>
    execa(kubectlPath, [...args, `--kubeconfig=${kubeconfig}`], { reject: false });

  /** The sample's Ready condition, or undefined while it has none. */
  async function readyCondition(kubeconfig?: string): Promise<{ status: string; message: string } | undefined> {
    const result = await kubectl(['get', 'redisclusters', 'rediscluster-sample', '-o', 'json'], kubeconfig);
    if (result.exitCode !== 0) return undefined;
    const object = JSON.parse(result.stdout) as {
      status?: { conditions?: Array<{ type: string; status: string; message: string }> };
    };
    return object.status?.conditions?.find((condition) => condition.type === 'Ready');
  }

  async function waitForCondition(
    check: (condition: { status: string; message: string } | undefined) => boolean,
    kubeconfig?: string,
    timeoutMs = 30_000,
  ) {
    const deadline = Date.now() + timeoutMs;
    let last: { status: string; message: string } | undefined;
    while (Date.now() < deadline) {
      last = await readyCondition(kubeconfig);
      if (check(last)) return last!;
      await sleep(100);
    }
    throw new Error(
      `the sample's Ready condition is ${JSON.stringify(last)}; output of kop dev:\n${dev?.lines.join('\n')}`,
    );
  }

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/dev/run-dev.js']);
    kubectlPath = findControlPlaneBinary('kubectl');
    ({ parent, project } = await initLinkedProject('demo', 'kop-e2e-dev-'));
    const api = await execa(
      'node',
      [KOP_BIN, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'RedisCluster', '--yes'],
      {
        cwd: project,
        reject: false,
        env: { NO_COLOR: '1', CI: 'true' },
      },
    );
    expect(api.exitCode, api.stderr).toBe(0);
  }, TIMEOUT);

  afterEach(async () => {
    // A failed test must not leave kop dev running: SIGKILL it (its reaper ends the rest).
    if (dev && dev.child.exitCode === null && dev.child.signalCode === null) {
      dev.child.kill('SIGKILL');
      await dev.exited;
    }
    dev = undefined;
    await plane?.stop();
    plane = undefined;
  });

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'runs the operator on its own control plane, picks up edits of the reconciler and the API type, and stops everything on SIGINT',
    async () => {
      dev = startDev(project, ['--samples']);
      await dev.waitForLine(/watching api\/ and src\//);
      expect(dev.lines.join('\n')).toMatch(
        /control plane ready in [\d.]+ m?s \(https:\/\/127\.0\.0\.1:\d+\) · CRDs installed: redisclusters\.cache\.example\.com/,
      );
      expect(dev.lines.join('\n')).toContain(
        'kubeconfig: .kop/dev/kubeconfig   (kubectl --kubeconfig .kop/dev/kubeconfig get redisclusters)',
      );
      expect(dev.lines.join('\n')).toMatch(
        /samples applied: rediscluster\.cache\.example\.com\/rediscluster-sample created/,
      );
      expect(dev.lines.join('\n')).toMatch(/manager started, ready in/);
      expect(readFileSync(path.join(project, '.kop/dev/pid'), 'utf8').trim()).toBe(String(dev.child.pid));
      const ready = await waitForCondition((condition) => condition?.status === 'True');
      expect(ready.message).toBe('RedisCluster is reconciled at generation 1');

      // A second kop dev in the same project is refused while this one runs.
      const second = await execa('node', [KOP_BIN, 'dev'], {
        cwd: project,
        reject: false,
        env: { NO_COLOR: '1', CI: 'true' },
      });
      expect(second.exitCode).toBe(1);
      expect(second.stderr).toContain(`error: kop dev is already running in this project (pid ${dev.child.pid})`);

      // An edit of the reconciler: the restarted manager writes the new message.
      const managerBefore = (await pgrep(path.join(project, '.kop/dev/build/main.mjs')))[0];
      expect(managerBefore).toBeDefined();
      const controller = await readFile(path.join(project, CONTROLLER), 'utf8');
      expect(controller).toContain('`RedisCluster is reconciled at generation ${generation ?? 0}`');
      let from = dev.lines.length;
      await writeFile(
        path.join(project, CONTROLLER),
        controller.replace('RedisCluster is reconciled at generation', 'Edited reconciler saw generation'),
      );
      await dev.waitForLine(
        /src\/controllers\/rediscluster\.controller\.ts changed · .*built in \d+ ms · manager restarted, ready in/,
        from,
      );
      await waitForCondition((condition) => condition?.message === 'Edited reconciler saw generation 1');

      // A broken edit: the error is printed and the last good manager keeps running.
      from = dev.lines.length;
      const managerGood = (await pgrep(path.join(project, '.kop/dev/build/main.mjs')))[0]!;
      await writeFile(path.join(project, CONTROLLER), controller.replace('export class', 'export clas'));
      await dev.waitForLine(/build failed \(\d+ ms\) · the manager runs the last good build/, from);
      await dev.waitForLine(/\[ERROR\] Unexpected "clas"/, from);
      await dev.waitForLine(/src\/controllers\/rediscluster\.controller\.ts:\d+:\d+:/, from);
      expect(alive(managerGood)).toBe(true);
      // Fixed again: a new manager.
      from = dev.lines.length;
      await writeFile(
        path.join(project, CONTROLLER),
        controller.replace('RedisCluster is reconciled at generation', 'Fixed reconciler saw generation'),
      );
      await dev.waitForLine(/manager restarted, ready in/, from);
      await waitForCondition((condition) => condition?.message === 'Fixed reconciler saw generation 1');
      expect(alive(managerGood)).toBe(false);

      // An edit of the API type: generate, the CRD reinstalled with the new field, the manager restarted.
      from = dev.lines.length;
      const types = await readFile(path.join(project, TYPES), 'utf8');
      const withReplicas = types
        .replace(
          "import type { Condition, ListMeta, ObjectMeta } from 'kop/api';",
          "import type { Condition, int32, ListMeta, ObjectMeta } from 'kop/api';",
        )
        .replace(
          '  foo?: string;\n}',
          '  foo?: string;\n  /**\n   * replicas is how many Redis nodes run.\n   * +optional\n   */\n  replicas?: int32;\n}',
        );
      expect(withReplicas).toContain('replicas?: int32;');
      await writeFile(path.join(project, TYPES), withReplicas);
      await dev.waitForLine(
        new RegExp(
          `rediscluster\\.types\\.ts changed · generated \\d+ files? in .* · CRD ${CRD_NAME.replace(/\./g, '\\.')} reinstalled in .* · manager restarted, ready in`,
        ),
        from,
      );
      const schema = await kubectl([
        'get',
        'crd',
        CRD_NAME,
        '-o',
        'jsonpath={.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.type}',
      ]);
      expect(schema.stdout).toBe('integer');
      // The generated client kop generate rewrote started no cycle of its own.
      await sleep(500);
      expect(dev.lines.slice(from).filter((line) => line.includes(' changed · '))).toHaveLength(1);

      // SIGINT: everything kop dev started goes, by pid and by name.
      const started = descendants(dev.child.pid!);
      const names = started.map(commandLine);
      expect(names.some((name) => name.includes('kube-apiserver'))).toBe(true);
      expect(names.some((name) => name.includes('etcd'))).toBe(true);
      expect(names.some((name) => name.includes('.kop/dev/build/main.mjs'))).toBe(true);
      const server = dev.lines.join('\n').match(/\((https:\/\/127\.0\.0\.1:\d+)\)/)![1]!;
      dev.child.kill('SIGINT');
      const exit = await dev.exited;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(dev.lines.join('\n')).toMatch(/stopped: manager, control plane/);
      await expectAllGone([...started]);
      expect(await pgrep(project)).toEqual([]);
      expect(await pgrep(`--secure-port=${new URL(server).port}`)).toEqual([]);
      expect(existsSync(path.join(project, '.kop/dev/kubeconfig'))).toBe(false);
      expect(existsSync(path.join(project, '.kop/dev/pid'))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    '--trace prints each reconcile of the sample as a waterfall of its spans, from the manager the scaffold traces',
    async () => {
      dev = startDev(project, ['--samples', '--trace']);
      await dev.waitForLine(
        /tracing: each reconcile is printed when it ends \(OTLP receiver http:\/\/127\.0\.0\.1:\d+\)/,
      );
      await dev.waitForLine(/watching api\/ and src\//);
      await waitForCondition((condition) => condition?.status === 'True');
      // The header of a reconcile of the sample, then its spans as indented rows with bars.
      const header = await dev.waitForLine(
        /\[kop dev \d\d:\d\d:\d\d\] reconcile rediscluster default\/rediscluster-sample · (success|requeue[^·]*) · [\d.]+ m?s · queued [\d.]+ m?s/,
      );
      const rows: string[] = [];
      for (const line of dev.lines.slice(dev.lines.indexOf(header) + 1)) {
        if (!line.startsWith('  ')) break;
        rows.push(line);
      }
      const waterfall = [header, ...rows].join('\n');
      expect(rows.length, waterfall).toBeGreaterThan(0);
      expect(
        rows.every((row) => /\|[ █]+\| {2}[\d.]+ m?s$/.test(row)),
        waterfall,
      ).toBe(true);
      expect(
        rows.some((row) => /^ {2}cache get RedisCluster +(hit|synced informer) /.test(row)),
        waterfall,
      ).toBe(true);
      expect(
        rows.some((row) => /^ {2}(PUT|PATCH|POST) redisclusters\S* +[23]\d\d/.test(row)),
        waterfall,
      ).toBe(true);
      expect(dev.lines.join('\n')).not.toContain('kop dev --trace:');

      dev.child.kill('SIGINT');
      expect(await dev.exited).toEqual({ code: 0, signal: null });
      expect(dev.lines.join('\n')).toMatch(/stopped: manager, control plane/);
    },
    TIMEOUT,
  );

  it(
    'uses an existing cluster with --kubeconfig, installing the CRDs only with consent',
    async () => {
      plane = await startControlPlane();
      const crdPresent = async () => (await kubectl(['get', 'crd', CRD_NAME], plane!.kubeconfigPath)).exitCode === 0;

      // No terminal and no --install-crds: nothing is installed, and the status line says so.
      dev = startDev(project, ['--kubeconfig', plane.kubeconfigPath]);
      await dev.waitForLine(/watching api\/ and src\//);
      expect(dev.lines.join('\n')).toMatch(
        /using the cluster at https:\/\/127\.0\.0\.1:\d+ · CRDs not installed \(pass --install-crds\)/,
      );
      // The manager cannot get ready without its CRD: said at once, not after the readiness timeout.
      expect(dev.lines.join('\n')).toMatch(
        /manager started; it waits for CRDs this cluster does not have: redisclusters\.cache\.example\.com \(pass --install-crds\)/,
      );
      expect(await crdPresent()).toBe(false);
      dev.child.kill('SIGTERM');
      expect(await dev.exited).toEqual({ code: 0, signal: null });

      // With consent: installed, the sample reconciled by the manager, and the CRD stays afterwards.
      dev = startDev(project, ['--kubeconfig', plane.kubeconfigPath, '--install-crds', '--samples']);
      await dev.waitForLine(/watching api\/ and src\//);
      expect(dev.lines.join('\n')).toMatch(/CRDs installed: redisclusters\.cache\.example\.com/);
      await waitForCondition((condition) => condition?.status === 'True', plane.kubeconfigPath);
      const started = descendants(dev.child.pid!);
      dev.child.kill('SIGTERM');
      expect(await dev.exited).toEqual({ code: 0, signal: null });
      expect(dev.lines.join('\n')).toMatch(/stopped: manager, cluster connection/);
      await expectAllGone(started);
      expect(await crdPresent()).toBe(true);
      // The user's kubeconfig is theirs: kop dev neither copied nor deleted it.
      expect(existsSync(plane.kubeconfigPath)).toBe(true);
      expect(existsSync(path.join(project, '.kop/dev/kubeconfig'))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'installs the webhooks of a project that has them and serves them from the manager',
    async () => {
      const webhook = await execa(
        'node',
        [
          KOP_BIN,
          'create',
          'webhook',
          '--group',
          'cache',
          '--version',
          'v1alpha1',
          '--kind',
          'RedisCluster',
          '--defaulting',
          '--programmatic-validation',
          '--yes',
        ],
        {
          cwd: project,
          reject: false,
          env: { NO_COLOR: '1', CI: 'true' },
        },
      );
      expect(webhook.exitCode, webhook.stderr).toBe(0);
      dev = startDev(project, ['--samples']);
      await dev.waitForLine(/watching api\/ and src\//);
      const output = dev.lines.join('\n');
      const port = output.match(/webhooks installed, served on port (\d+)/)?.[1];
      expect(port, output).toBeDefined();
      // The configurations point at the manager, and the API server called it for the sample
      // (failurePolicy Fail: had the call failed, so would the apply).
      const mutating = await kubectl([
        'get',
        'mutatingwebhookconfigurations',
        '-o',
        'jsonpath={.items[*].webhooks[*].clientConfig.url}',
      ]);
      expect(mutating.stdout).toBe(`https://127.0.0.1:${port}/mutate-cache-example-com-v1alpha1-rediscluster`);
      expect(output).toMatch(/samples applied: rediscluster\.cache\.example\.com\/rediscluster-sample created/);
      expect(output).toMatch(/"msg":"serving webhooks"/);
      await waitForCondition((condition) => condition?.status === 'True');

      // A webhook marker edited: kop generate rewrites config/webhook and kop dev reinstalls it.
      const validator = path.join(project, 'src/webhooks/cache/v1alpha1/rediscluster.validator.ts');
      await writeFile(
        validator,
        (await readFile(validator, 'utf8')).replace(
          'mutating=false,failurePolicy=fail',
          'mutating=false,failurePolicy=ignore',
        ),
      );
      await dev.waitForLine(/webhooks reinstalled/);
      const validating = await kubectl([
        'get',
        'validatingwebhookconfigurations',
        '-o',
        'jsonpath={.items[*].webhooks[*].failurePolicy}',
      ]);
      expect(validating.stdout).toBe('Ignore');
      const started = descendants(dev.child.pid!);
      dev.child.kill('SIGINT');
      expect(await dev.exited).toEqual({ code: 0, signal: null });
      await expectAllGone(started);
    },
    TIMEOUT,
  );
});
