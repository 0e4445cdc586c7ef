/**
 * A test file's lease on one of the live project's shared control planes (see
 * shared-control-plane-broker.ts): started once per vitest worker slot instead of once per file.
 *
 * What the file gets is a plane nobody else uses while it runs, reset to a fresh start once it is
 * done (namespaces and cluster-scoped objects made since are deleted), so a file works in namespaces
 * of its own and need not delete what it made. A file that stops or restarts the apiserver, needs
 * other apiserver flags, or tests kop/testing's own start and stop starts a plane of its own.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, inject } from 'vitest';
import type { ControlPlane } from '../../src/testing/index.js';
import type { BrokerRequest, SharedPlaneInfo } from './shared-control-plane-broker.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `host:port` of the shared control planes' broker (test/helpers/shared-control-plane-setup.ts). */
    sharedControlPlaneBroker: string;
  }
}

/**
 * A leased plane: a {@link ControlPlane} without what would disturb the next file (stopping or
 * restarting the apiserver) or needs options of its own (webhooks).
 */
export type SharedControlPlane = Omit<
  ControlPlane,
  'stop' | 'stopApiServer' | 'startApiServer' | 'restartApiServer' | 'reloadWebhooks' | 'webhook'
>;

/** A lease: the plane, and `release()` to hand it back (also what the end of the worker process does). */
export interface SharedControlPlaneLease {
  plane: SharedControlPlane;
  release(): Promise<void>;
}

type Request = BrokerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * Leases a shared plane from the broker at `address` (default: the one the live project's
 * globalSetup provides). Resolves once the plane is ready, which may mean waiting for it to start.
 */
export async function acquireSharedControlPlane(
  address: string = inject('sharedControlPlaneBroker'),
): Promise<SharedControlPlaneLease> {
  if (!address)
    throw new Error(
      'no shared control plane broker: run this file in the live project (npx vitest run --project live <file>)',
    );
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  const socket = connect(port, host);
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let buffer = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      const answer = JSON.parse(buffer.slice(0, newline)) as { id: number; value?: unknown; error?: string };
      buffer = buffer.slice(newline + 1);
      const waiter = pending.get(answer.id);
      pending.delete(answer.id);
      if (answer.error === undefined) waiter?.resolve(answer.value);
      else waiter?.reject(new Error(`shared control plane: ${answer.error}`));
    }
  });
  const failAll = (error: Error) => {
    closed = true;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  socket.on('error', (error) => failAll(error));
  socket.on('close', () => failAll(new Error('shared control plane: the broker closed the lease')));
  const call = <T>(request: Request): Promise<T> => {
    if (closed) return Promise.reject(new Error('shared control plane: the lease has ended'));
    const id = nextId++;
    socket.write(`${JSON.stringify({ ...request, id })}\n`);
    return new Promise<T>((resolve, reject) =>
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject }),
    );
  };

  const info = await call<SharedPlaneInfo>({ op: 'acquire' });
  const plane: SharedControlPlane = {
    ...info,
    addUser: (user) => call({ op: 'addUser', user }),
    compactEtcd: () => call({ op: 'compactEtcd' }),
    installCRDs: (sources, options) => call({ op: 'installCRDs', sources, options }),
  };
  return { plane, release: () => endLease(socket) };
}

/** Resolves once the broker has closed its side too, by which time it has taken the plane back. */
function endLease(socket: Socket): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    socket.once('close', () => resolve());
    socket.end();
  });
}

/**
 * For a test file: leases a shared plane before its tests and hands it back after them. The
 * returned object's `plane` is set from the first test on.
 */
export function useSharedControlPlane(): { readonly plane: SharedControlPlane } {
  let lease: SharedControlPlaneLease | undefined;
  beforeAll(async () => {
    lease = await acquireSharedControlPlane();
  });
  afterAll(async () => {
    await lease?.release();
  });
  return {
    get plane() {
      if (!lease) throw new Error('the shared control plane is leased in beforeAll; use it inside a test or hook');
      return lease.plane;
    },
  };
}
