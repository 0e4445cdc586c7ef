/**
 * The control plane's public shapes, apart from control-plane.ts so that existing-cluster.ts (which
 * control-plane.ts loads on demand) can name them without an import circle.
 */
import type { BinaryPathOptions, ControlPlaneBinaryPaths } from './binaries.js';
import type { Environment } from './cache-dir.js';
import type { CRDSource, CustomResourceDefinition, InstallCRDsOptions } from './crds.js';
import type { Kubeconfig } from './kubeconfig.js';
import type { WebhookInstallOptions, WebhookServing } from './webhooks.js';

/** Options for {@link startControlPlane}; every one has an envtest-compatible environment default. */
export interface ControlPlaneOptions {
  /** Explicit binary paths; otherwise found as described in binaries.ts (TEST_ASSET_*, KUBEBUILDER_ASSETS, ...). */
  binaries?: BinaryPathOptions;
  /** Start-to-ready limit; default `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT` or 60 s. */
  startTimeoutMs?: number;
  /** Graceful-stop limit per process before SIGKILL; default `KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT` or 20 s. */
  stopTimeoutMs?: number;
  /** Copy etcd and kube-apiserver output to this process; default `KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT`. */
  attachOutput?: boolean;
  /** Start nothing and use the current kubeconfig's cluster; default `USE_EXISTING_CLUSTER`. */
  useExistingCluster?: boolean;
  /** CRDs to install (and wait for) before the promise resolves. */
  crds?: CRDSource[];
  /**
   * Webhooks to install as envtest does: a CA and serving certificate in a temp folder, a free
   * port, the Mutating/ValidatingWebhookConfigurations and the CRD conversions named by
   * conversion patches pointed at `https://127.0.0.1:<port>`. Where to serve them is
   * {@link ControlPlane.webhook}. With an existing cluster, see {@link WebhookInstallOptions.externalHost}.
   */
  webhooks?: WebhookInstallOptions;
  /** Extra kube-apiserver flags, appended after kop's (a later flag wins), e.g. `--feature-gates=...`. */
  apiServerArgs?: string[];
  /** Extra etcd flags, appended after kop's. */
  etcdArgs?: string[];
  /** Environment to read the defaults from; `process.env` unless given. */
  env?: Environment;
}

/** A user of the control plane and a kubeconfig that authenticates as it. */
export interface ControlPlaneUser {
  name: string;
  groups: string[];
  /** Kubeconfig object for this user (current context set). */
  kubeconfig: Kubeconfig;
  /** The same kubeconfig written to a file (deleted by stop()). */
  kubeconfigPath: string;
  /** Client certificate PEM; absent for users of an existing cluster. */
  certData?: string;
  /** Client private key PEM; absent for users of an existing cluster. */
  keyData?: string;
}

/** A running control plane (or a connection to an existing cluster). */
export interface ControlPlane {
  /** True when USE_EXISTING_CLUSTER mode connected to a cluster instead of starting one. */
  readonly existingCluster: boolean;
  /** The API server URL, e.g. https://127.0.0.1:41234. */
  readonly server: string;
  /** PEM of the CA that signed the API server's serving certificate (and, when started here, the client certificates). */
  readonly caData: string | undefined;
  /** Admin (group system:masters) kubeconfig object. */
  readonly kubeconfig: Kubeconfig;
  /** Admin kubeconfig file path. */
  readonly kubeconfigPath: string;
  /** The admin user, with its client certificate when the control plane was started here. */
  readonly admin: ControlPlaneUser;
  /** etcd's client URL (http://127.0.0.1:port); undefined for an existing cluster. */
  readonly etcdUrl: string | undefined;
  /** The binaries started; undefined for an existing cluster. */
  readonly binaries: ControlPlaneBinaryPaths | undefined;
  /** The temp folder holding data, certificates and kubeconfigs; removed by stop(). */
  readonly dir: string;
  /**
   * Where the test serves the installed webhooks (host, port, certificate folder and file names,
   * CA), for the manager's `webhookServer` option; undefined without the `webhooks` option.
   */
  readonly webhook: WebhookServing | undefined;
  /**
   * A kubeconfig for a user named `name` in `groups`, with no rights beyond what RBAC grants
   * those names (create Roles/Bindings as admin to give some). Started here: a client
   * certificate (CN=name, O=groups). Existing cluster: impersonation (`as`, `as-groups`) of
   * the current user.
   */
  addUser(user: { name: string; groups?: string[] }): Promise<ControlPlaneUser>;
  /**
   * Installs CRDs from paths or objects and waits until each is Established and served. A CRD
   * named by one of the `webhooks.conversionPatches` gets its conversion webhook set here too.
   */
  installCRDs(sources: CRDSource | CRDSource[], options?: InstallCRDsOptions): Promise<CustomResourceDefinition[]>;
  /**
   * Reads the `webhooks` option's files again and installs what they hold now, at the same address
   * with the same certificate (configurations gone from the files are deleted); the next
   * installCRDs applies changed conversion patches. For a dev loop whose generator rewrote them.
   */
  reloadWebhooks(): Promise<void>;
  /**
   * Compacts etcd's history up to its current revision, so watches and lists from an older
   * resourceVersion get 410 Gone once the API server's watch cache no longer covers them.
   * Returns the compacted revision. Not available for an existing cluster.
   */
  compactEtcd(): Promise<number>;
  /**
   * Stops kube-apiserver and leaves etcd (and so every object) running: SIGTERM and its graceful
   * shutdown, or with `force` a SIGKILL, as a crashed apiserver. Watches break and requests are
   * refused until {@link startApiServer}. Does nothing when it is already stopped. Not available
   * for an existing cluster.
   */
  stopApiServer(options?: StopApiServerOptions): Promise<void>;
  /**
   * Starts kube-apiserver again with the same flags, certificates, port and etcd, and resolves
   * once `/readyz` answers 200 (within the start timeout). Does nothing when it is running.
   */
  startApiServer(): Promise<void>;
  /** {@link stopApiServer} then {@link startApiServer}: for tests of watch and client recovery. */
  restartApiServer(options?: StopApiServerOptions): Promise<void>;
  /** Stops the processes (SIGTERM, then SIGKILL after the stop timeout) and deletes the temp folder. Idempotent. */
  stop(): Promise<void>;
}

/** How {@link ControlPlane.stopApiServer} ends kube-apiserver. */
export interface StopApiServerOptions {
  /** SIGKILL at once, as a crash or OOM kill would, instead of SIGTERM and a graceful shutdown. */
  force?: boolean;
}
