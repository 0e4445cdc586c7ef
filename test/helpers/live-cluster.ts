/**
 * What a live runtime test sets up before its first test: a leased shared control plane (with the
 * Widget CRD), an admin client on it, namespaces of its own, and managers that elect a leader in
 * one of them. One place for what leader-election, warm-standby, runnables and sharding tests
 * each used to write out.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Client, Logger, ManagerOptions } from '../../src/runtime/index.js';
import type { Manager } from '../../src/runtime/index.js';
import { createClient, type RestClient } from '../../src/runtime/client/index.js';
import { freshNamespace, restFor } from '../runtime/controller/helpers.js';
import {
  acquireSharedControlPlane,
  type SharedControlPlane,
  type SharedControlPlaneLease,
} from './shared-control-plane.js';

/** The set-up of {@link useLiveCluster}; each part is there from the first test on. */
export interface LiveCluster {
  readonly plane: SharedControlPlane;
  /** An unthrottled admin client (closed after the file's tests). */
  readonly admin: RestClient;
  /** The typed client over {@link admin}. */
  readonly client: Client;
  /** A new unthrottled admin client, through `server` (a proxy) when given; the caller closes it, or a manager does. */
  rest(server?: string): RestClient;
  /** Creates a namespace with a name no other file uses (`<prefix>-<pid>-<n>`). */
  namespace(prefix: string): Promise<string>;
}

/** For a test file: leases a shared plane and makes an admin client before its tests, and gives both back after. */
export function useLiveCluster(): LiveCluster {
  let lease: SharedControlPlaneLease | undefined;
  let admin: RestClient | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    lease = await acquireSharedControlPlane();
    admin = restFor(lease.plane);
    client = createClient(admin);
  });
  afterAll(async () => {
    admin?.close();
    await lease?.release();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the live cluster is set up in beforeAll; use it inside a test or hook');
    return value;
  };
  return {
    get plane() {
      return ready(lease).plane;
    },
    get admin() {
      return ready(admin);
    },
    get client() {
      return ready(client);
    },
    rest: (server) => restFor(ready(lease).plane, server),
    namespace: (prefix) => freshNamespace(ready(admin), prefix),
  };
}

/** Lease timings short enough for a test to see a hand-over in seconds. */
export const FAST_LEASE = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 } as const;

/**
 * Options of a manager scoped to namespace `ns` that elects a leader through the Lease `id` there
 * as `identity`, with probes and metrics on free ports (or off, as `overrides` say) and
 * {@link FAST_LEASE} timings unless overridden.
 */
export function electingManagerOptions(
  rest: RestClient,
  ns: string,
  election: { id: string; identity: string },
  overrides: ManagerOptions = {},
): ManagerOptions {
  return {
    rest,
    namespace: ns,
    metricsBindAddress: '0',
    healthProbeBindAddress: '127.0.0.1:0',
    leaderElection: true,
    leaderElectionId: election.id,
    leaderElectionNamespace: ns,
    leaderElectionIdentity: election.identity,
    ...FAST_LEASE,
    ...overrides,
  };
}

/** A running manager: `done` is start()'s promise, `failure()` what it rejected with, if it has. */
export function startManager(manager: Manager): { done: Promise<void>; failure: () => unknown } {
  const done = manager.start();
  let failure: unknown;
  done.catch((err: unknown) => (failure = err));
  return { done, failure: () => failure };
}

/** A logger that records info, warn and error lines with the time `clock` gave when they were logged. */
export function recordingLogger(clock: () => number = Date.now): {
  logger: Logger;
  logged: Array<{ at: number; message: string }>;
  loggedAt(fragment: string): number | undefined;
} {
  const logged: Array<{ at: number; message: string }> = [];
  const record = (message: string) => void logged.push({ at: clock(), message });
  const logger: Logger = { debug: () => undefined, info: record, warn: record, error: record, child: () => logger };
  return { logger, logged, loggedAt: (fragment) => logged.find((l) => l.message.includes(fragment))?.at };
}
