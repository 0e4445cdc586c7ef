// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { Manager, createLogger } from 'kop/runtime';
import { parseManagerFlags, USAGE } from './flags.js';
import { MemcachedReconciler } from './controllers/memcached.controller.js';
import { RedisClusterReconciler } from './controllers/rediscluster.controller.js';
// +kop:scaffold:imports

/**
 * The manager entry point: parses flags, then runs the kop/runtime manager, which serves the
 * health probes and metrics, syncs its caches, takes the leader Lease when asked to, runs every
 * registered controller, and on SIGTERM (what Kubernetes sends before killing the pod) stops
 * taking work and lets reconciles in flight finish.
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
  // JSON lines in a container or when piped, readable lines on a terminal.
  const logger = createLogger();
  logger.info('starting manager', { leaderElect: flags.leaderElect, kubeconfig: flags.kubeconfig || '(default)' });

  const manager = new Manager({
    kubeconfig: flags.kubeconfig || undefined,
    clientOptions: { qps: flags.kubeApiQps, burst: flags.kubeApiBurst || undefined },
    metricsBindAddress: flags.metricsBindAddress,
    healthProbeBindAddress: flags.healthProbeBindAddress,
    // Served on :9443 once a webhook is registered (`kop create webhook`), with the certificate
    // cert-manager mounts (config/default/manager_webhook_patch.yaml); reloaded when it rotates.
    webhookServer: { port: flags.webhookPort, certDir: flags.webhookCertPath || undefined, certName: flags.webhookCertName, keyName: flags.webhookCertKey },
    leaderElection: flags.leaderElect,
    leaderElectionId: 'demo-leader-election',
    logger,
  });

  try {
    // The first use of manager.rest loads the kubeconfig: a missing or broken one ends here, in one log line.
    new MemcachedReconciler().setupWithManager(manager);
    new RedisClusterReconciler().setupWithManager(manager);
    // +kop:scaffold:controllers
  } catch (error) {
    logger.error('cannot set up the controllers', { err: error });
    return 1;
  }

  manager.handleSignals();
  try {
    await manager.start();
  } catch (error) {
    logger.error('manager stopped with an error', { err: error });
    return 1;
  }
  return 0;
}

// Exit as soon as the manager has stopped, as controller-runtime's main does: after a lost
// leader Lease nothing still running (a reconcile ignoring its signal, a stray timer) may go on
// writing while another replica leads.
process.exit(await main(process.argv.slice(2)));
