// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import { GracefulShutdownTimeoutError, Manager, createLogger, type Logger } from 'kop/runtime';
import { parseManagerFlags, USAGE, type ManagerFlags } from './flags.js';
import { startTracing, type Tracing } from './tracing.js';
import { CronJobReconciler } from './controllers/cronjob.controller.js';
import { setupWebhooks } from './webhooks/setup.js';
// +kop:scaffold:imports

/**
 * Exit codes: 0 after a clean stop, 1 on an error (a lost leader Lease, caches that never
 * synced, a broken kubeconfig), 2 for bad flags, and 3 when a shutdown's
 * --graceful-shutdown-timeout passed with reconciles still running: they were abandoned (their
 * signals aborted), and whichever replica reconciles next does that work again.
 */
const EXIT_ABANDONED_WORK = 3;

/**
 * The manager entry point: parses flags, then runs the kop/runtime manager, which serves the
 * health probes and metrics, syncs its caches, takes the leader Lease when asked to, runs every
 * registered controller, and on SIGTERM (what Kubernetes sends before killing the pod) stops
 * taking work and lets reconciles in flight finish within --graceful-shutdown-timeout.
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
  let tracing: Tracing | undefined;
  try {
    // Before the manager's first call, so that every span it records is exported. Without
    // OTEL_EXPORTER_OTLP_ENDPOINT this loads nothing (see src/tracing.ts).
    tracing = await startTracing('cronjob', logger);
  } catch (error) {
    logger.error('cannot start tracing', { err: error });
    return 1;
  }
  try {
    return await runManager(flags, logger);
  } finally {
    // After the manager stopped (on SIGTERM too): sends the spans still batched.
    await tracing?.shutdown();
  }
}

/** Runs the manager until it stops; returns the process's exit code. */
async function runManager(flags: ManagerFlags, logger: Logger): Promise<number> {
  logger.info('starting manager', {
    leaderElect: flags.leaderElect,
    kubeconfig: flags.kubeconfig || '(default)',
    gracefulShutdownTimeoutMs: flags.gracefulShutdownTimeoutMs,
  });

  const manager = new Manager({
    kubeconfig: flags.kubeconfig || undefined,
    clientOptions: { qps: flags.kubeApiQps, burst: flags.kubeApiBurst || undefined },
    // HTTPS on :8443 by default: only callers the apiserver authorises for `get` on /metrics
    // (config/rbac/metrics_reader_role.yaml) read it; a self-signed certificate unless
    // --metrics-cert-path names a folder (cert-manager's, config/default/cert_metrics_manager_patch.yaml).
    metricsBindAddress: flags.metricsBindAddress,
    metricsSecure: flags.metricsSecure,
    metricsServer: {
      certDir: flags.metricsCertPath || undefined,
      certName: flags.metricsCertName,
      keyName: flags.metricsCertKey,
    },
    healthProbeBindAddress: flags.healthProbeBindAddress,
    gracefulShutdownTimeoutMs: flags.gracefulShutdownTimeoutMs,
    // Served on :9443 once a webhook is registered (`kop create webhook`), with the certificate
    // cert-manager mounts (config/default/manager_webhook_patch.yaml); reloaded when it rotates.
    // ENABLE_WEBHOOKS=false leaves the webhooks out (see where setupWebhooks is called).
    webhookServer: {
      port: flags.webhookPort,
      certDir: flags.webhookCertPath || undefined,
      certName: flags.webhookCertName,
      keyName: flags.webhookCertKey,
    },
    leaderElection: flags.leaderElect,
    leaderElectionId: 'cronjob-leader-election',
    // Replicas that do not lead keep their controllers' caches filled (config/manager runs two), so
    // a failover reconciles at once instead of listing first; each standby costs a cache's memory.
    warmStandby: true,
    // Warns, naming the largest caches, before the pod is killed for its memory: once the caches'
    // estimated size passes a sixth of the container's memory limit (MEMORY_LIMIT, from
    // config/manager; cached objects take about four times their estimate, and Node some 60 MB),
    // or the heap 85% of its limit. Without MEMORY_LIMIT only the heap is checked.
    cacheMemoryBudget: { bytes: Number(process.env.MEMORY_LIMIT) / 6 || undefined },
    // What the cache holds per kind ("Caches and memory" in the kop book): a label or field
    // selector, namespaces, a transform. Objects outside are not cached (a cached get of one
    // answers NotFound). For example, only the Secrets this operator labels, with coreV1SecretType
    // from 'kop/runtime/builtin':
    // byObject: [{ type: coreV1SecretType, labelSelector: { 'app.kubernetes.io/managed-by': 'cronjob' } }],
    // Share the objects of a kind among the replicas, each caching and reconciling only its share
    // ("Sharding across replicas" in the kop book; keep leader election on, raise the replicas),
    // with import { cronJobType } from '../api/batch/v1/cronjob.client.js':
    // sharding: { name: 'cronjob', types: [cronJobType] },
    logger,
  });

  try {
    // The first use of manager.rest loads the kubeconfig: a missing or broken one ends here, in one log line.
    new CronJobReconciler().setupWithManager(manager);
    // ENABLE_WEBHOOKS=false runs the manager without its webhooks, so without a serving certificate
    // (`npm start` against a cluster, as Kubebuilder's `make run`); `kop dev` serves them with one of its own.
    if (process.env.ENABLE_WEBHOOKS !== 'false') setupWebhooks(manager);
    // +kop:scaffold:controllers
  } catch (error) {
    logger.error('cannot set up the controllers', { err: error });
    return 1;
  }

  manager.handleSignals();
  try {
    await manager.start();
  } catch (error) {
    if (error instanceof GracefulShutdownTimeoutError) {
      logger.error('manager stopped, abandoning reconciles in flight', { err: error, abandoned: error.abandoned });
      return EXIT_ABANDONED_WORK;
    }
    logger.error('manager stopped with an error', { err: error });
    return 1;
  }
  return 0;
}

// Exit as soon as the manager has stopped, as controller-runtime's main does: after a lost
// leader Lease nothing still running (a reconcile ignoring its signal, a stray timer) may go on
// writing while another replica leads.
process.exit(await main(process.argv.slice(2)));
