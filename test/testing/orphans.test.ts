import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startControlPlane } from '../../src/testing/index.js';
import { eventually, pidsMentioning } from './helpers.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/hold-control-plane.ts', import.meta.url));
const VITE_NODE = fileURLToPath(new URL('../../node_modules/vite-node/vite-node.mjs', import.meta.url));

const scratchDirs: string[] = [];
afterEach(() => {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A private TMPDIR, so this test sees only the temp folders and processes it caused. */
function scratchTmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kop-orphan-test-'));
  scratchDirs.push(dir);
  return dir;
}

/** Starts the fixture in a child node process and resolves once its control plane is ready. */
async function startHolder(tmp: string) {
  const child = spawn(process.execPath, [VITE_NODE, FIXTURE], {
    env: { ...process.env, TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let output = '';
  const ready = await new Promise<{ dir: string }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve(JSON.parse(line) as { dir: string });
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`the fixture exited before its control plane was ready:\n${output}`)));
  });
  return { child, exited, dir: ready.dir };
}

describe('no orphans', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to a process running a control plane kills etcd and kube-apiserver, deletes the temp folder, then ends the process by ${signal}`, async () => {
      const tmp = scratchTmp();
      const holder = await startHolder(tmp);
      expect(holder.dir.startsWith(tmp)).toBe(true);
      expect(pidsMentioning(holder.dir).length).toBe(2);

      holder.child.kill(signal);
      const exit = await holder.exited;

      expect(exit.signal).toBe(signal);
      expect(pidsMentioning(holder.dir)).toEqual([]);
      expect(existsSync(holder.dir)).toBe(false);
    });
  }

  it('SIGKILL of the process (what a terminated vitest worker may get) is cleaned up by the reaper', async () => {
    const tmp = scratchTmp();
    const holder = await startHolder(tmp);
    expect(pidsMentioning(holder.dir).length).toBe(2);

    holder.child.kill('SIGKILL');
    await holder.exited;

    expect(await eventually(() => pidsMentioning(holder.dir).length === 0)).toBe(true);
    expect(await eventually(() => !existsSync(holder.dir))).toBe(true);
  });

  it('a start that fails half-way kills what it started and deletes its temp folder', async () => {
    const tmp = scratchTmp();
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const failure = startControlPlane({ apiServerArgs: ['--no-such-flag=1'] });
      await expect(failure).rejects.toThrow(
        /kube-apiserver exited \(code 1\) while waiting for kube-apiserver \/readyz:[\s\S]*unknown flag: --no-such-flag/,
      );
    } finally {
      process.env.TMPDIR = previous;
    }
    expect(pidsMentioning(tmp)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
