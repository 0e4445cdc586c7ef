import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient } from '../../../src/runtime/client/index.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import type { Widget } from './helpers.js';
import {
  freshNamespace,
  restFor,
  leaseTestControlPlane,
  type LeasedControlPlane,
  waitFor,
  widgetResource,
} from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');

let plane: LeasedControlPlane;
let admin: RestClient;
// Bundled next to node_modules so the child resolves prom-client and friends; plain node runs it,
// so the signal reaches our handler and nothing else (vite-node would install its own).
const childScript = path.join(root, 'node_modules/.cache/kop-controller-tests/sigterm-manager.mjs');

beforeAll(async () => {
  mkdirSync(path.dirname(childScript), { recursive: true });
  execFileSync(path.join(root, 'node_modules/.bin/esbuild'), [
    path.join(here, 'fixtures/sigterm-manager.ts'),
    '--bundle',
    '--platform=node',
    '--format=esm',
    '--target=node20',
    '--packages=external',
    `--outfile=${childScript}`,
    '--log-level=warning',
  ]);
  plane = await leaseTestControlPlane();
  admin = restFor(plane);
});

afterAll(async () => {
  admin?.close();
  await plane?.release();
});

/** Runs the fixture manager in a child node process. */
function startChild(namespace: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [childScript], {
    cwd: root,
    env: { ...process.env, KUBECONFIG_PATH: plane.kubeconfigPath, WATCH_NAMESPACE: namespace, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<{ line: string; at: number }> = [];
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const line of parts) lines.push({ line, at: Date.now() });
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, at: Date.now() })),
  );
  return { child, lines, exited, stderr: () => stderr, has: (text: string) => lines.find((l) => l.line === text) };
}

describe('graceful shutdown on SIGTERM', () => {
  it('waits for the reconcile in flight, takes no new work, and exits 0', async () => {
    const ns = await freshNamespace(admin, 'sigterm');
    const run = startChild(ns, { RECONCILE_MS: '2500' });
    try {
      await waitFor(() => run.has('manager-starting'), 30_000, `child start (${run.stderr()})`);
      const widgets = new ResourceClient<Widget>(admin, widgetResource, ns);
      await widgets.create({ metadata: { name: 'slow' }, spec: { size: 1 } });
      await waitFor(() => run.has('reconcile-start slow'), 20_000, `reconcile start (${run.stderr()})`);
      const signalledAt = Date.now();
      run.child.kill('SIGTERM');
      // An event after SIGTERM must not start another reconcile.
      await widgets.create({ metadata: { name: 'late' }, spec: { size: 1 } });
      const exit = await run.exited;
      expect(exit.code).toBe(0);
      const end = run.has('reconcile-end slow');
      expect(end, run.lines.map((l) => l.line).join('\n')).toBeDefined();
      expect(end!.at).toBeGreaterThanOrEqual(signalledAt);
      expect(run.has('manager-exited')).toBeDefined();
      expect(run.has('reconcile-start late')).toBeUndefined();
      expect(run.has('reconcile-aborted slow')).toBeUndefined();
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('gives up on a reconcile that outlives the shutdown deadline, aborts its signal, and says so: GracefulShutdownTimeoutError, exit 3', async () => {
    const ns = await freshNamespace(admin, 'sigterm-deadline');
    const run = startChild(ns, { RECONCILE_MS: '60000', SHUTDOWN_MS: '1000' });
    try {
      await waitFor(() => run.has('manager-starting'), 30_000, `child start (${run.stderr()})`);
      await new ResourceClient<Widget>(admin, widgetResource, ns).create({
        metadata: { name: 'stuck' },
        spec: { size: 1 },
      });
      await waitFor(() => run.has('reconcile-start stuck'), 20_000, 'reconcile start');
      const signalledAt = Date.now();
      run.child.kill('SIGTERM');
      const exit = await run.exited;
      expect(exit.code).toBe(3);
      expect(exit.at - signalledAt).toBeLessThan(10_000);
      expect(run.has('reconcile-aborted stuck')).toBeDefined();
      expect(
        run.has('abandoned [{"controller":"widget","reconciles":1}]'),
        run.lines.map((l) => l.line).join('\n'),
      ).toBeDefined();
    } finally {
      run.child.kill('SIGKILL');
    }
  });
});
