import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// kop/runtime's own loader and connection code, not @kubernetes/client-node's KubeConfig: that
// one loads client-node's whole generated API (about 65 MB of memory, a slow import) into
// every test process that only needs to read a kubeconfig and sign requests.
import { loadClientConfig, type ClientConfig } from '../runtime/client/index.js';
import {
  type KubeconfigCluster as LoadedCluster,
  type KubeconfigUser as LoadedUser,
  Transport,
} from '../runtime/internal.js';
import { removeDirSync } from './cleanup.js';
import type { ControlPlane, ControlPlaneOptions, ControlPlaneUser } from './control-plane-types.js';
import { installCRDs, readCRDs, type CRDSource } from './crds.js';
import { ApiServerTransport } from './http.js';
import { writeKubeconfig, type Kubeconfig, type KubeconfigCluster, type KubeconfigUser } from './kubeconfig.js';
import {
  applyConversionPatches,
  checkConversionPatchTargets,
  installWebhookConfigurations,
  prepareWebhooks,
  readWebhookInputs,
  uninstallWebhooks,
  type PreparedWebhooks,
  reloadWebhooks,
} from './webhooks.js';

/**
 * USE_EXISTING_CLUSTER mode: the current kubeconfig stands in for a started control plane. It
 * is found as kubectl finds it — KUBECONFIG (merged), then ~/.kube/config, then the in-cluster
 * service account — with KUBECONFIG read from `options.env` (default process.env). Its current
 * context is written, with certificate files embedded, to a temp folder (`kubeconfigPath`).
 * stop() deletes only that folder; the cluster and whatever the tests created in it stay.
 *
 * Webhooks (the `webhooks` option) are installed the same way as on a started control plane,
 * but the cluster's API server must be able to dial the URL they point at: `127.0.0.1` is the
 * API server's own host, not this one, unless the cluster runs here outside any container, so
 * set `webhooks.externalHost` to a name of this host that the API server reaches (and that the
 * serving certificate then carries). As with envtest, kop cannot check this; a webhook the API
 * server cannot reach fails its requests by the webhook's failurePolicy. stop() deletes the
 * installed webhook configurations (they would otherwise break the cluster's writes) and sets
 * the conversion of patched CRDs back to `None`; the CRDs themselves stay, as above. A
 * configuration of the same name already in the cluster (the operator deployed there) is
 * replaced, and then deleted by stop().
 */
export async function connectToExistingCluster(options: ControlPlaneOptions): Promise<ControlPlane> {
  const crds = readCRDs(options.crds ?? []);
  const webhookInputs = options.webhooks ? readWebhookInputs(options.webhooks) : undefined;
  if (webhookInputs) checkConversionPatchTargets(crds, webhookInputs.patches);
  const config = loadClientConfig({ env: options.env ?? process.env });
  const kubeconfig = flattenedKubeconfig(config);
  const dir = mkdtempSync(join(realpathSync(tmpdir()), 'kop-existing-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  let connection: Transport | undefined;
  let transport: ApiServerTransport | undefined;
  let webhooks: PreparedWebhooks | undefined;
  try {
    if (webhookInputs) webhooks = await prepareWebhooks(options.webhooks!, webhookInputs, dir);
    writeKubeconfig(kubeconfigPath, kubeconfig);
    connection = new Transport(config);
    transport = new ApiServerTransport(config.server, {}, signWith(connection));
  } catch (error) {
    connection?.close();
    removeDirSync(dir);
    throw error;
  }
  const userName = kubeconfig.users[0]!.name;
  const admin: ControlPlaneUser = { name: userName, groups: [], kubeconfig, kubeconfigPath };
  const caEntry = kubeconfig.clusters[0]!.cluster['certificate-authority-data'];
  let userCount = 0;
  let stopped = false;
  let installedWebhooks = false;

  const plane: ControlPlane = {
    existingCluster: true,
    server: config.server,
    caData: caEntry === undefined ? undefined : Buffer.from(caEntry, 'base64').toString('utf8'),
    kubeconfig,
    kubeconfigPath,
    admin,
    etcdUrl: undefined,
    binaries: undefined,
    dir,
    get webhook() {
      return webhooks?.serving;
    },
    async reloadWebhooks() {
      if (!webhooks || !options.webhooks) throw new Error('reloadWebhooks(): connected without the webhooks option');
      webhooks = await reloadWebhooks(transport!, webhooks, options.webhooks, Date.now() + 60_000);
    },
    async addUser(user) {
      // No CA key here, so users are impersonated by the current user (who needs the
      // `impersonate` verb on users and groups, as cluster admins have).
      const groups = user.groups ?? [];
      const impersonating: Kubeconfig = structuredClone(kubeconfig);
      const entry = impersonating.users[0]!.user;
      delete entry['as-uid'];
      delete entry['as-user-extra'];
      delete entry['as-groups'];
      entry.as = user.name;
      if (groups.length > 0) entry['as-groups'] = [...groups];
      userCount += 1;
      const path = join(dir, `kubeconfig-user-${userCount}`);
      writeKubeconfig(path, impersonating);
      return { name: user.name, groups, kubeconfig: impersonating, kubeconfigPath: path };
    },
    async installCRDs(sources: CRDSource | CRDSource[], installOptions) {
      let objects = readCRDs(Array.isArray(sources) ? sources : [sources]);
      if (webhooks)
        objects = applyConversionPatches(objects, webhooks.patches, webhooks.serving.url, webhooks.caBundle);
      return installCRDs(transport!, objects, installOptions);
    },
    async compactEtcd() {
      throw notWithExistingCluster('compactEtcd()');
    },
    async stopApiServer() {
      throw notWithExistingCluster('stopApiServer()');
    },
    async startApiServer() {
      throw notWithExistingCluster('startApiServer()');
    },
    async restartApiServer() {
      throw notWithExistingCluster('restartApiServer()');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        if (webhooks && installedWebhooks) await uninstallWebhooks(transport!, webhooks);
      } finally {
        transport!.close();
        connection!.close();
        removeDirSync(dir);
      }
    },
  };
  try {
    if (webhooks) installedWebhooks = true; // from here on, stop() removes whatever part got installed
    if (crds.length > 0) await plane.installCRDs(crds);
    if (webhooks) await installWebhookConfigurations(transport!, webhooks, Date.now() + 60_000);
  } catch (error) {
    // The install's error is the one to report, not a failure to undo it.
    await plane.stop().catch(() => undefined);
    throw error;
  }
  return plane;
}

/**
 * Signs kop/testing's own requests (readiness, CRDs) with kop/runtime's Transport: its TLS
 * agent (CA, client certificate, also one an exec plugin hands out) and its authentication and
 * impersonation headers (tokens, token files, exec plugins, auth providers).
 */
function signWith(connection: Transport): (options: RequestOptions) => Promise<void> {
  return async (options) => {
    const headers = await connection.authHeaders();
    // Read after authHeaders(): an exec plugin's client certificate replaces the agent.
    options.agent = connection.agent;
    options.headers = { ...options.headers, ...headers };
  };
}

/**
 * The loaded configuration's current context as a one-context kubeconfig, with certificate
 * files read into `*-data` fields (`kubectl config view --minify --flatten`), so the file
 * still works when copied elsewhere. Token files and exec plugins stay references: their
 * credentials rotate.
 */
export function flattenedKubeconfig(config: ClientConfig): Kubeconfig {
  const clusterName = config.cluster.name || 'cluster';
  const userName = config.user.name || 'user';
  const contextName = config.context || 'context';
  const context: Kubeconfig['contexts'][number]['context'] = { cluster: clusterName, user: userName };
  if (config.namespace) context.namespace = config.namespace;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster: flattenedCluster(config.server, config.cluster) }],
    users: [{ name: userName, user: flattenedUser(config.user) }],
    contexts: [{ name: contextName, context }],
    'current-context': contextName,
  };
}

function flattenedCluster(server: string, cluster: LoadedCluster): KubeconfigCluster & Record<string, unknown> {
  const out: KubeconfigCluster & Record<string, unknown> = { server };
  const caData = cluster.caData ?? (cluster.caFile ? fileAsBase64(cluster.caFile) : undefined);
  if (caData) out['certificate-authority-data'] = caData;
  if (cluster.skipTLSVerify) out['insecure-skip-tls-verify'] = true;
  if (cluster.tlsServerName) out['tls-server-name'] = cluster.tlsServerName;
  if (cluster.proxyUrl) out['proxy-url'] = cluster.proxyUrl;
  if (cluster.extensions)
    out.extensions = Object.entries(cluster.extensions).map(([name, extension]) => ({ name, extension }));
  return out;
}

function flattenedUser(user: LoadedUser): KubeconfigUser {
  const out: KubeconfigUser = {};
  const certData = user.certData ?? (user.certFile ? fileAsBase64(user.certFile) : undefined);
  const keyData = user.keyData ?? (user.keyFile ? fileAsBase64(user.keyFile) : undefined);
  if (certData) out['client-certificate-data'] = certData;
  if (keyData) out['client-key-data'] = keyData;
  if (user.token) out.token = user.token;
  if (user.tokenFile) out.tokenFile = user.tokenFile;
  if (user.username) out.username = user.username;
  if (user.password) out.password = user.password;
  if (user.exec) out.exec = user.exec;
  if (user.authProvider) out['auth-provider'] = user.authProvider;
  if (user.impersonateUser) out.as = user.impersonateUser;
  if (user.impersonateUid) out['as-uid'] = user.impersonateUid;
  if (user.impersonateGroups) out['as-groups'] = [...user.impersonateGroups];
  if (user.impersonateUserExtra) out['as-user-extra'] = structuredClone(user.impersonateUserExtra);
  return out;
}

function fileAsBase64(file: string): string {
  return readFileSync(file).toString('base64');
}

function notWithExistingCluster(method: string): Error {
  return new Error(
    `${method} needs the control plane kop/testing starts; it is not available with USE_EXISTING_CLUSTER`,
  );
}
