import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { ResourceType } from '../../../src/runtime/index.js';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { coreV1NamespaceType } from '../../../src/runtime/builtin/index.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import type { ControlPlane } from '../../../src/testing/index.js';
import { startControlPlane } from '../../../src/testing/index.js';
import { SHARED_CONTROL_PLANE_OPTIONS } from '../../helpers/shared-control-plane-broker.js';
import { acquireSharedControlPlane, type SharedControlPlane } from '../../helpers/shared-control-plane.js';

/** A Widget as the tests use it. */
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    managedFields?: { manager?: string }[];
  };
  spec?: { size?: number; fail?: boolean };
  status?: Record<string, unknown>;
}

/** The test CRD: test.kop.dev/v1 Widget with a status subresource. */
export const widgetResource: ResourceType<Widget> = {
  group: 'test.kop.dev',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  listKind: 'WidgetList',
  namespaced: true,
};

/**
 * A control plane of the file's own with the Widget CRD, started as the shared ones are
 * (SHARED_CONTROL_PLANE_OPTIONS): for a file that stops or restarts the apiserver.
 */
export function startTestControlPlane(): Promise<ControlPlane> {
  return startControlPlane(SHARED_CONTROL_PLANE_OPTIONS);
}

/** A leased shared control plane with the Widget CRD (see test/helpers/shared-control-plane.ts); `release()` hands it back. */
export type LeasedControlPlane = SharedControlPlane & { release(): Promise<void> };

/** Leases a shared control plane with the Widget CRD, where Secrets bypass the watch cache so etcd compaction yields 410. */
export async function leaseTestControlPlane(): Promise<LeasedControlPlane> {
  const lease = await acquireSharedControlPlane();
  return { ...lease.plane, release: lease.release };
}

/**
 * For a test file: leases a shared control plane ({@link leaseTestControlPlane}) and an admin
 * client before its tests (handing both to `use`), and closes the client and hands the plane back
 * after them.
 */
export function useTestControlPlane(use: (started: { plane: SharedControlPlane; admin: RestClient }) => void): void {
  let plane: LeasedControlPlane | undefined;
  let admin: RestClient | undefined;
  beforeAll(async () => {
    plane = await leaseTestControlPlane();
    admin = restFor(plane);
    use({ plane, admin });
  });
  afterAll(async () => {
    admin?.close();
    await plane?.release();
  });
}

/** {@link useTestControlPlane} with a plane of the file's own, for a file that stops or restarts the apiserver. */
export function useOwnTestControlPlane(use: (started: { plane: ControlPlane; admin: RestClient }) => void): void {
  let plane: ControlPlane | undefined;
  let admin: RestClient | undefined;
  beforeAll(async () => {
    plane = await startTestControlPlane();
    admin = restFor(plane);
    use({ plane, admin });
  });
  afterAll(async () => {
    admin?.close();
    await plane?.stop();
  });
}

/** An unthrottled client for `plane`, optionally through another server URL (a proxy). */
export function restFor(plane: Pick<ControlPlane, 'kubeconfigPath'>, server?: string): RestClient {
  const config = loadClientConfig({ kubeconfig: plane.kubeconfigPath });
  if (server) return new RestClient({ ...config, server }, { qps: Infinity });
  return new RestClient(config, { qps: Infinity });
}

let namespaceCounter = 0;
/** Creates a namespace with a unique name. */
export async function freshNamespace(rest: RestClient, prefix: string): Promise<string> {
  const name = `${prefix}-${process.pid}-${++namespaceCounter}`;
  await new ResourceClient(rest, coreV1NamespaceType).create({ metadata: { name } });
  return name;
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await delay(25);
  }
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A TCP proxy on loopback in front of the apiserver that tests control: `freeze()` stops
 * forwarding on open connections without closing them (a half-dead watch), `cut()` resets every
 * connection and refuses new ones (an apiserver restart as clients see it), `restore()` ends both.
 */
export class TcpProxy {
  private readonly server: net.Server;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket; frozen: boolean }>();
  private refusing = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = net.createServer((client) => this.accept(client));
  }

  static async start(targetUrl: string): Promise<TcpProxy> {
    const url = new URL(targetUrl);
    const proxy = new TcpProxy({ host: url.hostname, port: Number(url.port) });
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.server.address() as net.AddressInfo).port;
    return proxy;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** Open connections currently forwarding. */
  get connections(): number {
    return this.pairs.size;
  }

  /** Stops forwarding on every open connection, leaving it open. New connections work. */
  freeze(): void {
    for (const pair of this.pairs) {
      pair.frozen = true;
      pair.client.pause();
      pair.upstream.pause();
    }
  }

  /** Freezes every open connection and refuses new ones until `restore`: every request hangs or fails. */
  hang(): void {
    this.freeze();
    this.refusing = true;
  }

  /** Resets every connection and refuses new ones until `restore`. */
  cut(): void {
    this.refusing = true;
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    this.pairs.clear();
  }

  /** Accepts connections again. Frozen connections stay frozen (they are dead to their clients). */
  restore(): void {
    this.refusing = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    if (this.refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    const pair = { client, upstream, frozen: false };
    this.pairs.add(pair);
    const drop = (): void => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => {
      if (!pair.frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!pair.frozen) client.write(chunk);
    });
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  }
}

/**
 * Writes a kubeconfig that reaches `plane` with a bearer `token` (a service account's, from
 * `kubectl create token`) and whose context namespace is `namespace`: what a pod's in-cluster
 * config amounts to, so a manager run with it keeps its leader-election Lease there.
 */
export async function writeTokenKubeconfig(
  file: string,
  plane: Pick<ControlPlane, 'server' | 'caData'>,
  token: string,
  namespace: string,
): Promise<void> {
  await writeFile(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'envtest',
          cluster: {
            server: plane.server,
            'certificate-authority-data': Buffer.from(plane.caData!).toString('base64'),
          },
        },
      ],
      users: [{ name: 'manager', user: { token } }],
      contexts: [{ name: 'manager', context: { cluster: 'envtest', user: 'manager', namespace } }],
      'current-context': 'manager',
    }),
  );
}
