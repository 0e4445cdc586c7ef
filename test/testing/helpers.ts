import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import type { ControlPlane, ControlPlaneUser } from '../../src/testing/index.js';

/** A raw API answer, for asserting exact status codes. */
export interface RawResponse {
  status: number;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

/** One HTTPS request to the control plane as `user` (client certificate), read to the end. */
export function apiRequest(
  plane: Pick<ControlPlane, 'server' | 'caData'>,
  user: ControlPlaneUser,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<RawResponse> {
  const url = new URL(path, plane.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        method,
        hostname: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        ca: plane.caData,
        cert: user.certData,
        key: user.keyData,
        headers: payload === undefined ? {} : { 'content-type': contentType },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text, json: <T>() => JSON.parse(text) as T });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** True when a process with this pid exists (zombies included, which a dead parent's children never stay). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls until `condition` holds or `timeoutMs` passes; returns the last result. */
export async function eventually(condition: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

/** Pids of live processes whose command line mentions `marker` (Linux /proc). */
export function pidsMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return pids;
}
