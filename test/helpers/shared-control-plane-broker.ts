/**
 * The live project's control planes, shared by its test files (see shared-control-plane.ts for the
 * test side). The broker lives in vitest's main process (the live project's globalSetup), so the
 * planes outlive the worker processes that come and go per file, and kop/testing's cleanup (signal
 * handlers, exit handler, the reaper for a killed process) covers them like any plane it starts.
 *
 * A test file leases a plane over a socket for as long as it runs: one lease per plane, so files
 * sharing a plane never run at the same time, and no more planes run than files at once (vitest's
 * workers). When the socket closes (the file ended, or its worker died) the broker resets the plane
 * to how it started: it deletes every namespace made since and all in it, and every cluster-scoped
 * object made since. A plane it cannot reset (a starting CRD changed or deleted, a deletion that
 * does not finish) is stopped rather than handed on.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DiscoveryClient, RestClient, loadClientConfig } from '../../src/runtime/client/index.js';
import { isNotFound } from '../../src/runtime/index.js';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../src/testing/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * How every shared plane is started: the Widget CRD (test.kop.dev/v1) the runtime tests use, and
 * Secrets served past the watch cache so that etcd compaction gives their reads 410 Gone.
 */
export const SHARED_CONTROL_PLANE_OPTIONS: ControlPlaneOptions = {
  crds: [path.join(here, '../runtime/controller/fixtures/widget-crd.yaml')],
  apiServerArgs: ['--watch-cache-sizes=secrets#0'],
};

/** What a lease hands the test file: everything of the plane that is data. */
export interface SharedPlaneInfo {
  server: string;
  caData: string | undefined;
  kubeconfig: ControlPlane['kubeconfig'];
  kubeconfigPath: string;
  admin: ControlPlane['admin'];
  etcdUrl: string | undefined;
  binaries: ControlPlane['binaries'];
  dir: string;
  existingCluster: boolean;
}

/** A request on a lease's socket (one JSON line); the answer carries the same id. */
export type BrokerRequest =
  | { id: number; op: 'acquire' }
  | { id: number; op: 'addUser'; user: { name: string; groups?: string[] } }
  | { id: number; op: 'compactEtcd' }
  | {
      id: number;
      op: 'installCRDs';
      sources: Parameters<ControlPlane['installCRDs']>[0];
      options?: Parameters<ControlPlane['installCRDs']>[1];
    };

/** Namespaces the apiserver makes itself; what it writes into them is its own business. */
const SYSTEM_NAMESPACES = new Set(['kube-system', 'kube-public', 'kube-node-lease']);
/** Groups whose objects the apiserver maintains (priority and fairness, aggregated APIs for CRD groups). */
const APISERVER_MAINTAINED_GROUPS = new Set(['flowcontrol.apiserver.k8s.io', 'apiregistration.k8s.io']);
const RESET_TIMEOUT_MS = 30_000;

interface ObjectMeta {
  name: string;
  namespace?: string;
  resourceVersion?: string;
  finalizers?: string[];
}

/** One listable, deletable resource, by its collection path. */
interface Collection {
  path: (namespace?: string) => string;
  namespaced: boolean;
  group: string;
  resource: string;
}

/** The objects there were when the plane was ready: `collection path -> name -> resourceVersion`. */
type Snapshot = Map<string, Map<string, string | undefined>>;

class SharedPlane {
  leased = false;
  /** Set while the plane is being reset; resolves true when it can be leased again. */
  resetting: Promise<boolean> | undefined;

  private constructor(
    readonly plane: ControlPlane,
    readonly rest: RestClient,
    private readonly snapshot: Snapshot,
  ) {}

  static async start(options: ControlPlaneOptions): Promise<SharedPlane> {
    const plane = await startControlPlane(options);
    const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
    try {
      return new SharedPlane(plane, rest, await takeSnapshot(rest));
    } catch (error) {
      rest.close();
      await plane.stop();
      throw error;
    }
  }

  info(): SharedPlaneInfo {
    const { server, caData, kubeconfig, kubeconfigPath, admin, etcdUrl, binaries, dir, existingCluster } = this.plane;
    return { server, caData, kubeconfig, kubeconfigPath, admin, etcdUrl, binaries, dir, existingCluster };
  }

  /** Puts the plane back as it started; false (and a reason on stderr) when it cannot. */
  async reset(): Promise<boolean> {
    // On a cluster kop did not start, objects made since are not all ours to delete.
    if (this.plane.existingCluster) return true;
    try {
      await resetTo(this.rest, this.snapshot);
      return true;
    } catch (error) {
      process.stderr.write(`shared control plane ${this.plane.server} not reused: ${String(error)}\n`);
      return false;
    }
  }

  async stop(): Promise<void> {
    this.rest.close();
    await this.plane.stop();
  }
}

/** Hands out leases on shared control planes; see the file's comment. */
export class SharedControlPlaneBroker {
  private readonly planes = new Set<SharedPlane>();
  private readonly sockets = new Set<Socket>();
  private closed = false;
  private listening = '';
  /** How many planes were started in all; for tests of reuse. */
  started = 0;

  private constructor(
    private readonly server: Server,
    private readonly options: ControlPlaneOptions,
  ) {}

  /** Listens on a loopback port; {@link address} is what test files connect to. */
  static async start(options: ControlPlaneOptions = SHARED_CONTROL_PLANE_OPTIONS): Promise<SharedControlPlaneBroker> {
    const server = createServer();
    const broker = new SharedControlPlaneBroker(server, options);
    server.on('connection', (socket) => broker.serve(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { address, port } = server.address() as AddressInfo;
    broker.listening = `${address}:${port}`;
    // The broker must not keep vitest's process alive by itself; teardown closes it.
    server.unref();
    return broker;
  }

  /** `127.0.0.1:<port>`, what test files connect to (also after close, when nobody answers there). */
  get address(): string {
    return this.listening;
  }

  /** Ends every lease and stops every plane (waiting for resets in progress first). */
  async close(): Promise<void> {
    this.closed = true;
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
    await Promise.all([...this.planes].map(async (shared) => shared.resetting?.catch(() => undefined)));
    await Promise.all([...this.planes].map((shared) => shared.stop()));
    this.planes.clear();
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    let lease: SharedPlane | undefined;
    let ended = false;
    // On the client's end of the socket, before this side closes: so once the client sees the socket
    // closed, the plane is already being reset and the next lease waits for it instead of starting one.
    const end = () => {
      if (!lease || ended) return;
      ended = true;
      this.release(lease);
    };
    let leasing: Promise<SharedPlane> | undefined;
    let buffer = '';
    socket.setEncoding('utf8');
    const answer = (id: number, result: { value?: unknown; error?: string }) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify({ id, ...result })}\n`);
    };
    const handle = async (request: BrokerRequest) => {
      try {
        if (request.op === 'acquire') {
          leasing ??= this.lease();
          lease = await leasing;
          if (socket.destroyed) end();
          return answer(request.id, { value: lease.info() });
        }
        if (!lease) throw new Error(`"${request.op}" before "acquire"`);
        if (request.op === 'addUser') return answer(request.id, { value: await lease.plane.addUser(request.user) });
        if (request.op === 'compactEtcd') return answer(request.id, { value: await lease.plane.compactEtcd() });
        return answer(request.id, { value: await lease.plane.installCRDs(request.sources, request.options) });
      } catch (error) {
        answer(request.id, { error: error instanceof Error ? error.message : String(error) });
      }
    };
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        void handle(JSON.parse(line) as BrokerRequest);
      }
    });
    socket.on('error', () => undefined);
    socket.on('end', end);
    socket.on('close', () => {
      this.sockets.delete(socket);
      end();
    });
  }

  /**
   * An idle plane; else one being reset (the file before in the same worker has just ended, and
   * waiting for its reset is much cheaper than a start); else a new one.
   */
  private async lease(): Promise<SharedPlane> {
    for (;;) {
      if (this.closed) throw new Error('the shared control planes are shut down');
      const idle = [...this.planes].find((shared) => !shared.leased && !shared.resetting);
      if (idle) {
        idle.leased = true;
        return idle;
      }
      const resetting = [...this.planes].find((shared) => !shared.leased && shared.resetting !== undefined);
      if (!resetting) break;
      await resetting.resetting;
    }
    const shared = await SharedPlane.start(this.options);
    this.started++;
    if (this.closed) {
      await shared.stop();
      throw new Error('the shared control planes are shut down');
    }
    shared.leased = true;
    this.planes.add(shared);
    return shared;
  }

  private release(shared: SharedPlane): void {
    if (!shared.leased) return;
    shared.leased = false;
    shared.resetting = shared.reset().then(async (reusable) => {
      if (!reusable || this.closed) {
        this.planes.delete(shared);
        await shared.stop();
      }
      shared.resetting = undefined;
      return reusable;
    });
  }
}

/** Every resource the admin can list and delete, except those the apiserver maintains itself. */
async function collections(rest: RestClient): Promise<Collection[]> {
  const resources = await new DiscoveryClient(rest).serverResources();
  const seen = new Set<string>();
  const found: Collection[] = [];
  for (const resource of resources) {
    if (!resource.verbs.includes('list') || !resource.verbs.includes('delete')) continue;
    if (APISERVER_MAINTAINED_GROUPS.has(resource.group)) continue;
    // Events are served by two groups; one of them is enough, and other group/versions of a resource are the same objects.
    const key = resource.resource === 'events' ? 'events' : `${resource.group}/${resource.resource}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const base = resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`;
    found.push({
      group: resource.group,
      resource: resource.resource,
      namespaced: resource.namespaced,
      path: (namespace) =>
        namespace ? `${base}/namespaces/${namespace}/${resource.resource}` : `${base}/${resource.resource}`,
    });
  }
  return found;
}

async function listAll(rest: RestClient, collection: Collection): Promise<ObjectMeta[]> {
  const list = await rest.get<{ items?: Array<{ metadata: ObjectMeta }> }>(collection.path());
  return (list.items ?? []).map((item) => item.metadata);
}

const keyOf = (meta: ObjectMeta) => (meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name);

async function takeSnapshot(rest: RestClient): Promise<Snapshot> {
  const snapshot: Snapshot = new Map();
  await Promise.all(
    (await collections(rest)).map(async (collection) => {
      const objects = await listAll(rest, collection);
      snapshot.set(collection.path(), new Map(objects.map((meta) => [keyOf(meta), meta.resourceVersion])));
    }),
  );
  return snapshot;
}

/**
 * Deletes what was made since `snapshot` (finalizers removed first: no controllers run to honour
 * them) and waits until it is gone. Throws when a starting CRD changed or disappeared, since the
 * next file would not get the plane it expects.
 */
async function resetTo(rest: RestClient, snapshot: Snapshot): Promise<void> {
  const doomed: Array<{ collection: Collection; meta: ObjectMeta }> = [];
  const namespaces = new Set<string>();
  await Promise.all(
    (await collections(rest)).map(async (collection) => {
      const before = snapshot.get(collection.path()) ?? new Map<string, string | undefined>();
      const objects = await listAll(rest, collection);
      if (collection.resource === 'customresourcedefinitions') {
        const now = new Map(objects.map((meta) => [meta.name, meta.resourceVersion]));
        for (const [name, version] of before)
          if (now.get(name) !== version) throw new Error(`the CRD ${name} it started with was changed or deleted`);
      }
      for (const meta of objects) {
        if (before.has(keyOf(meta))) continue;
        if (meta.namespace && SYSTEM_NAMESPACES.has(meta.namespace)) continue;
        if (collection.group === '' && collection.resource === 'namespaces') namespaces.add(meta.name);
        else doomed.push({ collection, meta });
      }
    }),
  );
  const objectPath = ({ collection, meta }: { collection: Collection; meta: ObjectMeta }) =>
    `${collection.path(meta.namespace)}/${meta.name}`;
  const remove = (objects: typeof doomed) =>
    Promise.all(
      objects.map((object) =>
        ignoreNotFound(async () => {
          if (object.meta.finalizers?.length)
            await rest.patch(objectPath(object), { metadata: { finalizers: null } }, 'application/merge-patch+json');
          await rest.delete(objectPath(object));
        }),
      ),
    );
  // Webhooks and admission policies first: one left pointing at a server that is gone would refuse the other deletions.
  const admission = (object: (typeof doomed)[number]) => object.collection.group === 'admissionregistration.k8s.io';
  await remove(doomed.filter(admission));
  await remove(doomed.filter((object) => !admission(object)));
  // Without kube-controller-manager nothing empties and removes a deleted namespace: finalize it here.
  await Promise.all(
    [...namespaces].map(async (name) => {
      await ignoreNotFound(async () => {
        await rest.delete(`/api/v1/namespaces/${name}`);
        const namespace = await rest.get<{ spec?: { finalizers?: string[] } }>(`/api/v1/namespaces/${name}`);
        await rest.put(`/api/v1/namespaces/${name}/finalize`, { ...namespace, spec: { finalizers: [] } });
      });
    }),
  );
  const remaining = [...doomed.map(objectPath), ...[...namespaces].map((name) => `/api/v1/namespaces/${name}`)];
  const deadline = Date.now() + RESET_TIMEOUT_MS;
  for (const objectUrl of remaining) {
    while (await exists(rest, objectUrl)) {
      if (Date.now() > deadline) throw new Error(`${objectUrl} was not deleted within ${RESET_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function exists(rest: RestClient, objectUrl: string): Promise<boolean> {
  try {
    await rest.get(objectUrl);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

async function ignoreNotFound(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
