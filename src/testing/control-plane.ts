import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findControlPlaneBinaries, type ControlPlaneBinaryPaths } from './binaries.js';
import type { Environment } from './cache-dir.js';
import { CertificateAuthority, type CertificateAndKey } from './certificates.js';
import { removeDirSync, trackForCleanup } from './cleanup.js';
import {
  installCRDs as installCRDsWith,
  readCRDs,
  sleep,
  type CRDSource,
  type CustomResourceDefinition,
  type InstallCRDsOptions,
} from './crds.js';
import { parseBoolean, parseDuration } from './durations.js';
import { ApiServerTransport, postJson } from './http.js';
import { buildKubeconfig, clientCertificateUser, writeKubeconfig, type Kubeconfig } from './kubeconfig.js';
import type {
  ControlPlane,
  ControlPlaneOptions,
  ControlPlaneUser,
  StopApiServerOptions,
} from './control-plane-types.js';
import { ManagedProcess } from './managed-process.js';
import { findFreePorts } from './ports.js';
import {
  applyConversionPatches,
  checkConversionPatchTargets,
  installWebhookConfigurations,
  prepareWebhooks,
  readWebhookInputs,
  reloadWebhooks,
  type PreparedWebhooks,
  type WebhookInstallOptions,
  type WebhookServing,
} from './webhooks.js';

export type {
  ControlPlane,
  ControlPlaneOptions,
  ControlPlaneUser,
  StopApiServerOptions,
} from './control-plane-types.js';

const DEFAULT_START_TIMEOUT_MS = 60_000;
const DEFAULT_STOP_TIMEOUT_MS = 20_000;
const ADMIN_USER = 'kop-admin';
const ADMIN_GROUPS = ['system:masters'];
const MAX_START_ATTEMPTS = 3;

/** Resolved options: explicit options first, then envtest's environment variables, then defaults. */
interface ResolvedOptions {
  startTimeoutMs: number;
  stopTimeoutMs: number;
  attachOutput: boolean;
  useExistingCluster: boolean;
}

/** Applies the envtest environment variables under the explicit options. */
export function resolveControlPlaneOptions(options: ControlPlaneOptions, env: Environment): ResolvedOptions {
  return {
    startTimeoutMs:
      options.startTimeoutMs ??
      parseDuration(env.KUBEBUILDER_CONTROLPLANE_START_TIMEOUT, 'KUBEBUILDER_CONTROLPLANE_START_TIMEOUT') ??
      DEFAULT_START_TIMEOUT_MS,
    stopTimeoutMs:
      options.stopTimeoutMs ??
      parseDuration(env.KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT, 'KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT') ??
      DEFAULT_STOP_TIMEOUT_MS,
    attachOutput: options.attachOutput ?? parseBoolean(env.KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT),
    useExistingCluster: options.useExistingCluster ?? parseBoolean(env.USE_EXISTING_CLUSTER),
  };
}

/**
 * Starts etcd and kube-apiserver on free loopback ports, with a fresh CA, client-certificate
 * admin, RBAC authorization and service-account keys, and resolves once `/readyz` answers 200
 * and the `default` namespace exists. With `useExistingCluster` (or USE_EXISTING_CLUSTER=true)
 * it starts nothing and uses the current kubeconfig instead.
 *
 * Nothing is left behind: a failed start kills what it started; stop(), SIGINT/SIGTERM/SIGHUP,
 * process exit and even SIGKILL of this process (through a small detached reaper) end the
 * child processes and delete the temp folder.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const env = options.env ?? process.env;
  const resolved = resolveControlPlaneOptions(options, env);
  if (resolved.useExistingCluster) {
    const { connectToExistingCluster } = await import('./existing-cluster.js');
    return connectToExistingCluster(options);
  }
  const binaries = findControlPlaneBinaries(options.binaries, env);
  // Read every manifest before anything starts: a wrong path fails fast and leaves nothing behind.
  const crds = readCRDs(options.crds ?? []);
  const webhookInputs = options.webhooks ? readWebhookInputs(options.webhooks) : undefined;
  if (webhookInputs) checkConversionPatchTargets(crds, webhookInputs.patches);
  // realpath: macOS's tmpdir is a symlink, and the reaper matches this path in command lines.
  const dir = mkdtempSync(join(realpathSync(tmpdir()), 'kop-envtest-'));
  const processes: ManagedProcess[] = [];
  const tracker = trackForCleanup({
    pids: () => processes.map((child) => child.pid).filter((pid): pid is number => pid !== undefined),
    dirs: [dir],
    marker: dir,
    async killAndRemove() {
      await Promise.all(processes.map((child) => child.kill()));
      removeDirSync(dir);
    },
    killAndRemoveSync() {
      for (const child of processes) child.signal('SIGKILL');
      removeDirSync(dir);
    },
  });

  const abandon = async () => {
    await Promise.all(processes.map((child) => child.kill()));
    removeDirSync(dir);
    tracker.release();
  };

  try {
    const [pki, webhooks] = await Promise.all([
      createPki(dir),
      webhookInputs ? prepareWebhooks(options.webhooks!, webhookInputs, dir) : undefined,
    ]);
    const deadline = Date.now() + resolved.startTimeoutMs;
    let started: Started | undefined;
    for (let attempt = 1; !started; attempt++) {
      try {
        started = await startProcesses({ dir, binaries, pki, options, resolved, processes, tracker, deadline });
      } catch (error) {
        if (!(error instanceof PortInUseError) || attempt >= MAX_START_ATTEMPTS) throw error;
        // Another process took a port between our probe and the bind: kill and retry on new ports.
        await Promise.all(processes.splice(0).map((child) => child.kill()));
        removeDirSync(join(dir, 'etcd'));
      }
    }
    const plane = new LocalControlPlane(
      started,
      pki,
      dir,
      binaries,
      resolved,
      processes,
      tracker,
      webhooks,
      options.webhooks,
    );
    if (crds.length > 0) await plane.installCRDs(crds, { timeoutMs: Math.max(deadline - Date.now(), 5_000) });
    if (webhooks)
      await installWebhookConfigurations(started.transport, webhooks, Math.max(deadline, Date.now() + 5_000));
    return plane;
  } catch (error) {
    await abandon();
    throw error;
  }
}

interface Pki {
  ca: CertificateAuthority;
  serving: CertificateAndKey;
  admin: CertificateAndKey;
  files: {
    caCert: string;
    servingCert: string;
    servingKey: string;
    serviceAccountKey: string;
    serviceAccountPublicKey: string;
  };
}

async function createPki(dir: string): Promise<Pki> {
  const pkiDir = join(dir, 'pki');
  mkdirSync(pkiDir, { mode: 0o700 });
  const ca = await CertificateAuthority.create();
  const [serving, admin] = await Promise.all([
    ca.issue({ commonName: 'kube-apiserver', usage: 'server', hosts: ['127.0.0.1', 'localhost', '::1'] }),
    ca.issue({ commonName: ADMIN_USER, organizations: ADMIN_GROUPS, usage: 'client' }),
  ]);
  // Service-account tokens are signed with this key; ECDSA P-256 keys are instant to make.
  const serviceAccount = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const files = {
    caCert: join(pkiDir, 'ca.crt'),
    servingCert: join(pkiDir, 'apiserver.crt'),
    servingKey: join(pkiDir, 'apiserver.key'),
    serviceAccountKey: join(pkiDir, 'sa.key'),
    serviceAccountPublicKey: join(pkiDir, 'sa.pub'),
  };
  writeFileSync(files.caCert, ca.certPem);
  writeFileSync(files.servingCert, serving.certPem);
  writeFileSync(files.servingKey, serving.keyPem, { mode: 0o600 });
  writeFileSync(files.serviceAccountKey, serviceAccount.privateKey, { mode: 0o600 });
  writeFileSync(files.serviceAccountPublicKey, serviceAccount.publicKey);
  return { ca, serving, admin, files };
}

interface Started {
  server: string;
  etcdUrl: string;
  transport: ApiServerTransport;
  /** kube-apiserver's full argument list, to start it again the same way. */
  apiServerArgs: string[];
}

class PortInUseError extends Error {}

async function startProcesses(input: {
  dir: string;
  binaries: ControlPlaneBinaryPaths;
  pki: Pki;
  options: ControlPlaneOptions;
  resolved: ResolvedOptions;
  processes: ManagedProcess[];
  tracker: { update(): void };
  deadline: number;
}): Promise<Started> {
  const { dir, binaries, pki, options, resolved, processes, tracker, deadline } = input;
  const [etcdClientPort, etcdPeerPort, apiServerPort] = await findFreePorts(3);
  const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
  const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
  const server = `https://127.0.0.1:${apiServerPort}`;

  const etcdArgs = [
    '--name=default',
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=${etcdUrl}`,
    `--advertise-client-urls=${etcdUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=default=${peerUrl}`,
    // Test data is thrown away; fsync only costs time.
    '--unsafe-no-fsync=true',
    ...(options.etcdArgs ?? []),
  ];
  const apiServerArgs = [
    `--etcd-servers=${etcdUrl}`,
    `--cert-dir=${join(dir, 'apiserver')}`,
    `--tls-cert-file=${pki.files.servingCert}`,
    `--tls-private-key-file=${pki.files.servingKey}`,
    `--client-ca-file=${pki.files.caCert}`,
    `--secure-port=${apiServerPort}`,
    '--bind-address=127.0.0.1',
    // Without it the apiserver looks for a routable interface to advertise, which a sandbox may lack.
    '--advertise-address=127.0.0.1',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    // No controller-manager runs, so nothing would create the ServiceAccounts this plugin demands.
    '--disable-admission-plugins=ServiceAccount',
    // On SIGTERM, end open watches (clients see a clean end) instead of waiting for them until the
    // stop timeout: a graceful stop takes about a second, not 20.
    '--shutdown-watch-termination-grace-period=2s',
    '--authorization-mode=RBAC',
    `--service-account-issuer=${server}/`,
    `--service-account-key-file=${pki.files.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${pki.files.serviceAccountKey}`,
    ...(options.apiServerArgs ?? []),
  ];

  // Both at once: the apiserver retries etcd until it answers, which saves etcd's start time.
  const etcd = ManagedProcess.start('etcd', binaries.etcd, etcdArgs, { attachOutput: resolved.attachOutput });
  processes.push(etcd);
  const apiServer = startApiServerProcess(binaries, apiServerArgs, resolved);
  processes.push(apiServer);
  tracker.update();

  const transport = new ApiServerTransport(server, {
    caPem: pki.ca.certPem,
    certPem: pki.admin.certPem,
    keyPem: pki.admin.keyPem,
  });
  try {
    await waitForReadyz(transport, deadline, [etcd, apiServer]);
    await waitFor('the default namespace', deadline, [etcd, apiServer], async () => {
      const response = await transport.request('GET', '/api/v1/namespaces/default', undefined, { timeoutMs: 2_000 });
      return response.status === 200;
    });
  } catch (error) {
    transport.close();
    throw error;
  }
  return { server, etcdUrl, transport, apiServerArgs };
}

function startApiServerProcess(
  binaries: ControlPlaneBinaryPaths,
  args: string[],
  resolved: ResolvedOptions,
): ManagedProcess {
  return ManagedProcess.start('kube-apiserver', binaries.kubeApiServer, args, { attachOutput: resolved.attachOutput });
}

function waitForReadyz(transport: ApiServerTransport, deadline: number, watched: ManagedProcess[]): Promise<void> {
  return waitFor('kube-apiserver /readyz', deadline, watched, async () => {
    const response = await transport.request('GET', '/readyz', undefined, { timeoutMs: 2_000 });
    return response.status === 200;
  });
}

/**
 * Polls `check` until it is true; fails early, with the process's last output, when a
 * watched process exits, and with both processes' output when the deadline passes.
 */
async function waitFor(
  what: string,
  deadline: number,
  watched: ManagedProcess[],
  check: () => Promise<boolean>,
): Promise<void> {
  for (;;) {
    const dead = watched.find((child) => child.exitStatus !== undefined);
    if (dead) {
      const output = dead.outputTail();
      const exit = dead.exitStatus!;
      const message = `${dead.name} exited (${exit.signal ?? `code ${exit.code}`}) while waiting for ${what}:\n${output}`;
      if (/address already in use|bind: address/i.test(output)) throw new PortInUseError(message);
      throw new Error(message);
    }
    try {
      if (await check()) return;
    } catch {
      // Connection refused or reset while the server comes up: keep polling.
    }
    if (Date.now() > deadline) {
      const outputs = watched.map((child) => `--- ${child.name} ---\n${child.outputTail(15)}`).join('\n');
      throw new Error(
        `the control plane did not become ready in time (waiting for ${what}); raise KUBEBUILDER_CONTROLPLANE_START_TIMEOUT or the startTimeoutMs option if this machine is slow.\n${outputs}`,
      );
    }
    await sleep(50);
  }
}

class LocalControlPlane implements ControlPlane {
  readonly existingCluster = false;
  readonly server: string;
  readonly caData: string;
  readonly kubeconfig: Kubeconfig;
  readonly kubeconfigPath: string;
  readonly admin: ControlPlaneUser;
  readonly etcdUrl: string;
  private readonly transport: ApiServerTransport;
  private readonly apiServerArgs: string[];
  private stopping: Promise<void> | undefined;
  /** The stop or start of kube-apiserver in progress; the next one waits for it. */
  private apiServerChange: Promise<void> = Promise.resolve();
  private userCount = 0;

  constructor(
    started: Started,
    private readonly pki: Pki,
    readonly dir: string,
    readonly binaries: ControlPlaneBinaryPaths,
    private readonly resolved: ResolvedOptions,
    /** etcd first, then kube-apiserver (replaced on each start). */
    private readonly processes: ManagedProcess[],
    private readonly cleanup: { update(): void; release(): void },
    private webhooks: PreparedWebhooks | undefined,
    /** The `webhooks` option, whose files reloadWebhooks() reads again. */
    private readonly webhookOptions?: WebhookInstallOptions,
  ) {
    this.server = started.server;
    this.etcdUrl = started.etcdUrl;
    this.transport = started.transport;
    this.apiServerArgs = started.apiServerArgs;
    this.caData = pki.ca.certPem;
    this.admin = this.writeUser(ADMIN_USER, ADMIN_GROUPS, pki.admin, 'kubeconfig');
    this.kubeconfig = this.admin.kubeconfig;
    this.kubeconfigPath = this.admin.kubeconfigPath;
  }

  async addUser(user: { name: string; groups?: string[] }): Promise<ControlPlaneUser> {
    this.assertRunning();
    const groups = user.groups ?? [];
    const credentials = await this.pki.ca.issue({ commonName: user.name, organizations: groups, usage: 'client' });
    this.userCount += 1;
    return this.writeUser(user.name, groups, credentials, `kubeconfig-user-${this.userCount}`);
  }

  get webhook(): WebhookServing | undefined {
    return this.webhooks?.serving;
  }

  async reloadWebhooks(): Promise<void> {
    this.assertRunning();
    if (!this.webhooks || !this.webhookOptions)
      throw new Error('reloadWebhooks(): the control plane was started without the webhooks option');
    this.webhooks = await reloadWebhooks(this.transport, this.webhooks, this.webhookOptions, Date.now() + 30_000);
  }

  async installCRDs(
    sources: CRDSource | CRDSource[],
    options?: InstallCRDsOptions,
  ): Promise<CustomResourceDefinition[]> {
    this.assertRunning();
    let crds = readCRDs(Array.isArray(sources) ? sources : [sources]);
    if (this.webhooks)
      crds = applyConversionPatches(crds, this.webhooks.patches, this.webhooks.serving.url, this.webhooks.caBundle);
    return installCRDsWith(this.transport, crds, options);
  }

  async compactEtcd(): Promise<number> {
    this.assertRunning();
    // A range request for any key returns the store's current revision in its header.
    const range = await postJson<{ header: { revision: string } }>(`${this.etcdUrl}/v3/kv/range`, {
      key: Buffer.from('/').toString('base64'),
    });
    const revision = Number(range.header.revision);
    await postJson(`${this.etcdUrl}/v3/kv/compaction`, { revision: String(revision), physical: true });
    return revision;
  }

  async stopApiServer(options: StopApiServerOptions = {}): Promise<void> {
    this.assertRunning();
    return this.changeApiServer(async (apiServer) => {
      if (options.force) await apiServer.kill();
      else await apiServer.stop(this.resolved.stopTimeoutMs);
      // Its kept-alive connections are dead now.
      this.transport.close();
    });
  }

  async startApiServer(): Promise<void> {
    this.assertRunning();
    return this.changeApiServer(async (current) => {
      if (current.exitStatus === undefined) return;
      const apiServer = startApiServerProcess(this.binaries, this.apiServerArgs, this.resolved);
      this.processes[1] = apiServer;
      this.cleanup.update();
      await waitForReadyz(this.transport, Date.now() + this.resolved.startTimeoutMs, [this.processes[0]!, apiServer]);
    });
  }

  async restartApiServer(options: StopApiServerOptions = {}): Promise<void> {
    await this.stopApiServer(options);
    await this.startApiServer();
  }

  /** Runs one kube-apiserver stop or start after the previous one, so two never interleave. */
  private changeApiServer(change: (apiServer: ManagedProcess) => Promise<void>): Promise<void> {
    const next = this.apiServerChange.catch(() => undefined).then(() => change(this.processes[1]!));
    this.apiServerChange = next;
    return next;
  }

  stop(): Promise<void> {
    this.stopping ??= this.stopNow();
    return this.stopping;
  }

  private async stopNow(): Promise<void> {
    await this.apiServerChange.catch(() => undefined);
    this.transport.close();
    // The apiserver first, so it does not spend its shutdown retrying a vanished etcd.
    const [etcd, ...others] = this.processes;
    for (const child of others.reverse()) await child.stop(this.resolved.stopTimeoutMs);
    if (etcd) await etcd.stop(this.resolved.stopTimeoutMs);
    removeDirSync(this.dir);
    this.cleanup.release();
  }

  private assertRunning(): void {
    if (this.stopping) throw new Error('the control plane has been stopped');
  }

  private writeUser(
    name: string,
    groups: string[],
    credentials: CertificateAndKey,
    fileName: string,
  ): ControlPlaneUser {
    const kubeconfig = buildKubeconfig({
      clusterName: 'kop-envtest',
      server: this.server,
      caPem: this.pki.ca.certPem,
      userName: name,
      user: clientCertificateUser(credentials.certPem, credentials.keyPem),
    });
    const kubeconfigPath = join(this.dir, fileName);
    writeKubeconfig(kubeconfigPath, kubeconfig);
    return { name, groups, kubeconfig, kubeconfigPath, certData: credentials.certPem, keyData: credentials.keyPem };
  }
}
