import { createHash } from 'node:crypto';
import {
  copyFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { type Exec, KopError } from '../base/index.js';
import { CertificateAuthority, findFreePorts } from '../testing/internal.js';
import { findRejectedStoredObjects, type RejectedObjects, type ManifestObject } from '../deploy/index.js';
import { RestClient, loadClientConfig } from '../runtime/client/index.js';
import {
  findControlPlaneBinary,
  startControlPlane,
  type ControlPlane,
  type WebhookInstallOptions,
} from '../testing/index.js';

/** The project folders `kop dev` installs from, relative to the root. */
export const CRD_DIR = 'config/crd/bases';
const WEBHOOK_DIR = 'config/webhook';
const CONVERSION_PATCH_DIR = 'config/crd/patches';
const SAMPLES_DIR = 'config/samples';

/** Options of {@link DevCluster.start}. */
export interface DevClusterOptions {
  /** The project root. */
  root: string;
  /** `<root>/.kop/dev`: where the kubeconfig and certificates of the session go. */
  stateDir: string;
  /** An existing cluster's kubeconfig (absolute); without it a control plane is started here. */
  kubeconfig?: string;
  /** Install (and reinstall) the CRDs; always true on the control plane started here. */
  installCRDs: boolean;
  /** The project has webhooks (PROJECT): install them and give the manager a serving certificate. */
  webhooks: boolean;
  /** With an existing cluster: the address its API server reaches this machine at; webhooks are installed only with it. */
  webhookHost?: string;
  env: Record<string, string | undefined>;
  exec: Exec;
}

/** What {@link DevCluster.syncCRDs} did. */
export interface CRDSync {
  /** CRDs installed for the first time this session. */
  added: string[];
  /** CRDs whose file changed, installed again. */
  installed: string[];
  deleted: string[];
  /** CRDs that changed but were left alone (no consent to install into an existing cluster). */
  notInstalled: string[];
  /** Stored objects the reinstalled CRDs' new schemas refuse, per served version (checked before installing). */
  rejected: RejectedObjects[];
  ms: number;
}

interface CRDFile {
  hash: string;
  names: string[];
}

/**
 * The cluster of a `kop dev` session: the control plane of kop/testing (the binaries the tests
 * use) started for the session, or an existing cluster named by `--kubeconfig`. Installs the
 * CRDs and webhooks as kop/testing's options do, reinstalls the CRDs whose files changed, applies
 * the samples, and gives the manager its kubeconfig and webhook serving flags.
 */
export class DevCluster {
  /** The kubeconfig the manager and kubectl use: `.kop/dev/kubeconfig`, or the existing cluster's. */
  readonly kubeconfigPath: string;
  /** Where the manager serves webhooks, when the project has any. */
  readonly webhook: { port: number; certDir: string; installed: boolean } | undefined;
  private crdFiles: Map<string, CRDFile>;
  private webhookInputsHash: string;
  private stopped = false;

  private constructor(
    private readonly options: DevClusterOptions,
    private readonly plane: ControlPlane,
    webhook: DevCluster['webhook'],
    /** How long the start took, for the first status line. */
    readonly startMs: number,
  ) {
    this.webhook = webhook;
    this.crdFiles = options.installCRDs ? readCRDFiles(options.root) : new Map<string, CRDFile>();
    this.webhookInputsHash = hashWebhookInputs(options.root);
    if (options.kubeconfig) {
      this.kubeconfigPath = options.kubeconfig;
    } else {
      // A stable path for kubectl; the temp folder of the control plane changes every session.
      this.kubeconfigPath = path.join(options.stateDir, 'kubeconfig');
      copyFileSync(plane.kubeconfigPath, this.kubeconfigPath);
      chmodSync(this.kubeconfigPath, 0o600);
    }
  }

  /** Starts the control plane (or connects to the existing cluster) with the CRDs and webhooks installed. */
  static async start(options: DevClusterOptions): Promise<DevCluster> {
    const started = performance.now();
    mkdirSync(options.stateDir, { recursive: true });
    const crdDir = path.join(options.root, CRD_DIR);
    const crds = options.installCRDs && existsSync(crdDir) ? [crdDir] : [];
    const installWebhooks = options.webhooks && (options.kubeconfig === undefined || options.webhookHost !== undefined);
    let webhooks: WebhookInstallOptions | undefined;
    if (installWebhooks) {
      webhooks = {
        paths: [path.join(options.root, WEBHOOK_DIR)],
        // A conversion patch names its CRD, which must be among those installed.
        conversionPatches: crds.length > 0 ? [path.join(options.root, CONVERSION_PATCH_DIR)] : [],
        externalHost: options.webhookHost,
      };
    }
    let plane: ControlPlane;
    try {
      plane = await startControlPlane({
        crds,
        webhooks,
        useExistingCluster: options.kubeconfig !== undefined,
        env: options.kubeconfig ? { ...options.env, KUBECONFIG: options.kubeconfig } : options.env,
      });
    } catch (error) {
      const message = (error as Error).message;
      if ((error as Error).name === 'ControlPlaneBinariesNotFoundError') {
        throw new KopError(
          message,
          'run `npx kop setup-envtest` once (it builds kube-apiserver and etcd), or pass --kubeconfig <file> to use an existing cluster',
        );
      }
      throw new KopError(
        `cannot start the ${options.kubeconfig ? 'connection to the cluster' : 'control plane'}: ${message}`,
      );
    }
    try {
      let webhook: DevCluster['webhook'];
      if (plane.webhook) {
        webhook = { port: plane.webhook.port, certDir: plane.webhook.certDir, installed: true };
      } else if (options.webhooks) {
        // Not installed in the cluster (no --webhook-host), but the manager's webhook server
        // still needs a certificate to start.
        webhook = { ...(await selfSignedWebhookCertificate(options.stateDir)), installed: false };
      }
      return new DevCluster(options, plane, webhook, performance.now() - started);
    } catch (error) {
      await plane.stop();
      throw error;
    }
  }

  /** The API server's URL. */
  get server(): string {
    return this.plane.server;
  }

  /** True when the session runs against an existing cluster (`--kubeconfig`). */
  get existingCluster(): boolean {
    return this.plane.existingCluster;
  }

  /** Names of the CRDs installed from the project (as of the last sync). */
  get crdNames(): string[] {
    return [...this.crdFiles.values()].flatMap((file) => file.names).sort();
  }

  /** The stored objects the CRDs of `files` would refuse once installed (as `kop install` checks). */
  private async rejectedStoredObjects(files: readonly string[]): Promise<RejectedObjects[]> {
    const objects: ManifestObject[] = [];
    for (const file of files) {
      for (const document of parseAllDocuments(readFileSync(path.join(this.options.root, file), 'utf8'))) {
        const value = document.toJS() as ManifestObject | null;
        if (value?.kind === 'CustomResourceDefinition') objects.push(value);
      }
    }
    const rest = new RestClient(loadClientConfig({ kubeconfig: this.kubeconfigPath }));
    try {
      return await findRejectedStoredObjects(objects, rest);
    } finally {
      rest.close();
    }
  }

  /**
   * Reinstalls the CRDs whose files in config/crd/bases changed since the last sync (and waits
   * until they are served); on the control plane started here, deletes the CRDs whose file is
   * gone. Against an existing cluster without consent, only reports what changed.
   */
  async syncCRDs(): Promise<CRDSync> {
    const started = performance.now();
    const current = readCRDFiles(this.options.root);
    const changedFiles = [...current]
      .filter(([file, state]) => this.crdFiles.get(file)?.hash !== state.hash)
      .map(([file]) => file);
    const known = new Set([...this.crdFiles.values()].flatMap((file) => file.names));
    const changedNames = changedFiles.flatMap((file) => current.get(file)!.names);
    const currentNames = new Set([...current.values()].flatMap((file) => file.names));
    const goneNames = [...new Set([...this.crdFiles.values()].flatMap((file) => file.names))].filter(
      (name) => !currentNames.has(name),
    );
    const result: CRDSync = { added: [], installed: [], deleted: [], notInstalled: [], rejected: [], ms: 0 };
    if (!this.options.installCRDs) {
      result.notInstalled = changedNames;
      result.ms = performance.now() - started;
      return result;
    }
    if (changedFiles.length > 0) {
      result.rejected = await this.rejectedStoredObjects(changedFiles);
      await this.plane.installCRDs(changedFiles.map((file) => path.join(this.options.root, file)));
      result.added = changedNames.filter((name) => !known.has(name));
      result.installed = changedNames.filter((name) => known.has(name));
    }
    if (goneNames.length > 0 && !this.plane.existingCluster) {
      const kubectl = this.kubectl();
      const deleted = await this.options.exec(kubectl, [
        'delete',
        'customresourcedefinition',
        ...goneNames,
        '--ignore-not-found',
        '--wait=false',
        `--kubeconfig=${this.kubeconfigPath}`,
      ]);
      if (deleted.exitCode !== 0)
        throw new Error(`kubectl delete customresourcedefinition ${goneNames.join(' ')}: ${deleted.stderr.trim()}`);
      result.deleted = goneNames;
    } else if (goneNames.length > 0) {
      result.notInstalled.push(...goneNames.map((name) => `${name} (removed from the project, left in the cluster)`));
    }
    this.crdFiles = current;
    result.ms = performance.now() - started;
    return result;
  }

  /**
   * The project's CRDs (config/crd/bases) this cluster does not have, when kop dev may not install
   * them (an existing cluster without --install-crds); empty when it installs them itself. The
   * manager cannot get ready without them, so kop dev says so instead of waiting.
   */
  async crdsMissing(): Promise<string[]> {
    if (this.options.installCRDs) return [];
    const names = [...readCRDFiles(this.options.root).values()].flatMap((file) => file.names);
    if (names.length === 0) return [];
    const result = await this.options.exec(this.kubectl(), [
      'get',
      'customresourcedefinitions',
      ...names,
      '--ignore-not-found',
      '-o',
      'name',
      `--kubeconfig=${this.kubeconfigPath}`,
    ]);
    if (result.exitCode !== 0) return [];
    const present = new Set(
      result.stdout
        .split('\n')
        .map((line) => line.trim().replace(/^customresourcedefinition\.apiextensions\.k8s\.io\//, '')),
    );
    return names.filter((name) => !present.has(name));
  }

  /** True when the webhook configurations or conversion patches changed since they were last installed. */
  webhooksChanged(): boolean {
    return hashWebhookInputs(this.options.root) !== this.webhookInputsHash;
  }

  /**
   * Installs the webhook configurations and conversion patches `kop generate` rewrote, at the
   * same address and with the same certificate the manager serves, and reinstalls the CRDs so a
   * changed conversion patch takes effect. False when nothing changed or the webhooks are not
   * installed in this cluster (no --webhook-host).
   */
  async reloadWebhooks(): Promise<boolean> {
    const hash = hashWebhookInputs(this.options.root);
    if (hash === this.webhookInputsHash || !this.webhook?.installed) return false;
    await this.plane.reloadWebhooks();
    if (this.options.installCRDs && this.crdFiles.size > 0)
      await this.plane.installCRDs([...this.crdFiles.keys()].map((file) => path.join(this.options.root, file)));
    this.webhookInputsHash = hash;
    return true;
  }

  /**
   * Applies config/samples (`kubectl apply -k`, so its kustomization decides what). Returns the
   * objects kubectl reports, or an empty list when the kustomization lists no sample yet.
   */
  async applySamples(): Promise<string[]> {
    const kustomization = path.join(this.options.root, SAMPLES_DIR, 'kustomization.yaml');
    if (!existsSync(kustomization) || !hasResources(readFileSync(kustomization, 'utf8'))) return [];
    const result = await this.options.exec(
      this.kubectl(),
      ['apply', '-k', SAMPLES_DIR, `--kubeconfig=${this.kubeconfigPath}`],
      { cwd: this.options.root },
    );
    if (result.exitCode !== 0)
      throw new KopError(`kubectl apply -k ${SAMPLES_DIR} failed: ${result.stderr.trim() || result.stdout.trim()}`);
    return result.stdout
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
  }

  /** Stops the control plane (or disconnects, removing the webhooks it installed) and deletes the session's kubeconfig. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    try {
      await this.plane.stop();
    } finally {
      if (!this.options.kubeconfig) rmSync(this.kubeconfigPath, { force: true });
      rmSync(path.join(this.options.stateDir, 'webhook-certs'), { recursive: true, force: true });
    }
  }

  /** kubectl: the one next to the control plane's binaries, else the one on PATH. */
  private kubectl(): string {
    if (this.plane.binaries?.kubectl) return this.plane.binaries.kubectl;
    try {
      return findControlPlaneBinary('kubectl', undefined, this.options.env);
    } catch {
      return 'kubectl';
    }
  }
}

/** Each CRD file of config/crd/bases (project-relative) with the hash of its content and the CRD names in it. */
function readCRDFiles(root: string): Map<string, CRDFile> {
  const files = new Map<string, CRDFile>();
  const dir = path.join(root, CRD_DIR);
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir).sort()) {
    if (!['.yaml', '.yml', '.json'].includes(path.extname(name))) continue;
    const text = readFileSync(path.join(dir, name), 'utf8');
    const names: string[] = [];
    for (const document of parseAllDocuments(text)) {
      const value = document.toJS() as { kind?: unknown; metadata?: { name?: unknown } } | null;
      if (value?.kind === 'CustomResourceDefinition' && typeof value.metadata?.name === 'string')
        names.push(value.metadata.name);
    }
    if (names.length > 0)
      files.set(path.posix.join(CRD_DIR, name), { hash: createHash('sha1').update(text).digest('hex'), names });
  }
  return files;
}

/** One hash over the webhook configurations and conversion patches, to notice that they changed. */
function hashWebhookInputs(root: string): string {
  const hash = createHash('sha1');
  for (const folder of [WEBHOOK_DIR, CONVERSION_PATCH_DIR]) {
    const dir = path.join(root, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      if (!/\.(ya?ml|json)$/.test(name)) continue;
      hash
        .update(`${folder}/${name}\0`)
        .update(readFileSync(path.join(dir, name)))
        .update('\0');
    }
  }
  return hash.digest('hex');
}

/** True when a kustomization.yaml lists at least one resource. */
function hasResources(text: string): boolean {
  const value = parseAllDocuments(text)[0]?.toJS() as { resources?: unknown } | null | undefined;
  return Array.isArray(value?.resources) && value.resources.length > 0;
}

/**
 * A serving certificate for the manager's webhook server when the webhooks are not installed
 * in the cluster (an existing cluster without --webhook-host): nothing calls the server, but
 * it must start.
 */
async function selfSignedWebhookCertificate(stateDir: string): Promise<{ port: number; certDir: string }> {
  const certDir = path.join(stateDir, 'webhook-certs');
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const ca = await CertificateAuthority.create('kop-dev-webhook-ca');
  const serving = await ca.issue({
    commonName: 'kop-dev-webhook-server',
    usage: 'server',
    hosts: ['127.0.0.1', 'localhost'],
  });
  writeFileSync(path.join(certDir, 'tls.crt'), serving.certPem);
  writeFileSync(path.join(certDir, 'tls.key'), serving.keyPem, { mode: 0o600 });
  const [port] = await findFreePorts(1, '0.0.0.0');
  return { port: port!, certDir };
}
