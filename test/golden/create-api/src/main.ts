// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { createServer, type Server } from 'node:http';
import { parseBindAddress, parseManagerFlags, USAGE, type BindAddress } from './flags.js';
import { MemcachedReconciler } from './controllers/memcached.controller.js';
import { RedisClusterReconciler } from './controllers/rediscluster.controller.js';
// +kop:scaffold:imports

/**
 * The manager entry point: parses flags, serves the health probes and metrics, and
 * stops cleanly on SIGTERM (what Kubernetes sends before killing the pod).
 */
async function main(argv: readonly string[]): Promise<number> {
  let flags;
  try {
    flags = parseManagerFlags(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  log('starting manager', { leaderElect: flags.leaderElect, kubeconfig: flags.kubeconfig || '(default)' });

  const memcachedReconciler = new MemcachedReconciler();
  log('reconciler created; it is not called until a watch on memcacheds is wired to it', { kind: memcachedReconciler.kind, apiVersion: memcachedReconciler.apiVersion });
  const redisClusterReconciler = new RedisClusterReconciler();
  log('reconciler created; it is not called until a watch on redisclusters is wired to it', { kind: redisClusterReconciler.kind, apiVersion: redisClusterReconciler.apiVersion });
  // +kop:scaffold:controllers

  const servers: Server[] = [];
  const probes = parseBindAddress(flags.healthProbeBindAddress);
  if (probes) servers.push(await listen(probes, probeHandler, 'health probes'));
  const metrics = parseBindAddress(flags.metricsBindAddress);
  if (metrics) servers.push(await listen(metrics, metricsHandler, 'metrics'));

  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  log('shutting down');
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return 0;
}

type Handler = (path: string) => { status: number; body: string; type?: string };

/** /healthz: the process is alive; /readyz: it can take traffic. */
const probeHandler: Handler = (path) =>
  path === '/healthz' || path === '/readyz' ? { status: 200, body: 'ok' } : { status: 404, body: 'not found' };

/** A minimal Prometheus endpoint with process figures. */
const metricsHandler: Handler = (path) => {
  if (path !== '/metrics') return { status: 404, body: 'not found' };
  const lines = [
    '# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.',
    '# TYPE process_start_time_seconds gauge',
    `process_start_time_seconds ${Math.floor(Date.now() / 1000 - process.uptime())}`,
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    '# TYPE process_resident_memory_bytes gauge',
    `process_resident_memory_bytes ${process.memoryUsage().rss}`,
    '',
  ];
  return { status: 200, body: lines.join('\n'), type: 'text/plain; version=0.0.4' };
};

function listen(address: BindAddress, handler: Handler, name: string): Promise<Server> {
  const server = createServer((request, response) => {
    const { status, body, type } = handler(new URL(request.url ?? '/', 'http://localhost').pathname);
    response.writeHead(status, { 'content-type': type ?? 'text/plain' }).end(body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host || undefined, () => {
      log(`serving ${name}`, { address: server.address() });
      resolve(server);
    });
  });
}

function log(message: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: message, ...fields }) + '\n');
}

process.exitCode = await main(process.argv.slice(2));
