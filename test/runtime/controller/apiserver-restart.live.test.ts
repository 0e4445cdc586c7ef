import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../src/testing/index.js';
import type { RestClient, WatchRestartReason } from '../../../src/runtime/index.js';
import { Informer, ResourceClient, configMaps } from '../../../src/runtime/index.js';
import { coreResourceTypes } from '../../../src/runtime/index.js';
import { delay, freshNamespace, restFor, startTestControlPlane, waitFor } from './helpers.js';

/**
 * A real kube-apiserver restart mid-watch: kop/testing has no restart yet, so the test stops the
 * apiserver process of its control plane and starts the same binary with the same command line
 * (read from /proc) on the same port, against the same etcd. Linux only, like the CI.
 */
const linux = process.platform === 'linux';

let plane: ControlPlane;
let admin: RestClient;
let replacement: ChildProcess | undefined;

function apiServerProcess(dir: string): { pid: number; argv: string[] } {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      continue;
    }
    if (argv[0]?.endsWith('kube-apiserver') && argv.some((a) => a.includes(dir))) return { pid: Number(entry), argv };
  }
  throw new Error(`no kube-apiserver process of ${dir}`);
}

/** True while the process exists and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

beforeAll(async () => {
  if (!linux) return;
  plane = await startTestControlPlane();
  admin = restFor(plane);
});

afterAll(async () => {
  admin?.close();
  if (replacement && replacement.exitCode === null) {
    replacement.kill('SIGTERM');
    await new Promise((resolve) => replacement!.once('exit', resolve));
  }
  await plane?.stop();
});

describe.runIf(linux)('informer across a kube-apiserver restart', () => {
  it('reaches the server state after the apiserver restarts mid-watch, with changes made while it was down', async () => {
    const ns = await freshNamespace(admin, 'restart');
    const cms = configMaps(admin).inNamespace(ns);
    for (const name of ['keep', 'change', 'drop']) await cms.create({ metadata: { name }, data: { v: '1' } });

    const rest = restFor(plane);
    const restarts: WatchRestartReason[] = [];
    const informer = new Informer(new ResourceClient<{ metadata?: { name?: string; resourceVersion?: string }; data?: Record<string, string> }>(rest, coreResourceTypes.ConfigMap, ns), {
      initialBackoffMs: 200,
      maxBackoffMs: 1000,
      onWatchRestart: (reason) => restarts.push(reason),
    });
    informer.start();
    await informer.waitForSync();

    const old = apiServerProcess(plane.dir);
    // Killed hard, like a crashed or OOM-killed apiserver: its watches just break.
    process.kill(old.pid, 'SIGKILL');
    await waitFor(() => !alive(old.pid), 30_000, 'apiserver exit');
    replacement = spawn(old.argv[0]!, old.argv.slice(1), { stdio: 'ignore' });
    // Changes while the informer's watch is gone, written as soon as the new apiserver answers.
    await waitFor(async () => (await cms.list()).items.length === 3, 60_000, 'restarted apiserver');
    await cms.delete('drop');
    await cms.patch('change', { type: 'merge', patch: { data: { v: '2' } } });
    await cms.create({ metadata: { name: 'new' }, data: { v: '1' } });

    const server = async () => Object.fromEntries((await cms.list()).items.map((c) => [c.metadata!.name!, c.metadata!.resourceVersion!]));
    const cached = () => Object.fromEntries(informer.lister.list().map((c) => [c.metadata!.name!, c.metadata!.resourceVersion!]));
    await waitFor(async () => JSON.stringify(cached()) === JSON.stringify(await server()), 30_000, 'cache = server');
    expect(informer.lister.get(ns, 'change')?.data).toEqual({ v: '2' });
    expect(restarts.length).toBeGreaterThan(0);
    await delay(100);
    await informer.stop();
    rest.close();
  });
});
