import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { removeDirSync } from './cleanup.js';
import type { ControlPlane, ControlPlaneOptions, ControlPlaneUser } from './control-plane.js';
import { installCRDs, type CRDSource } from './crds.js';
import { ApiServerTransport } from './http.js';
import { writeKubeconfig, type Kubeconfig } from './kubeconfig.js';

/**
 * USE_EXISTING_CLUSTER mode: the current kubeconfig (KUBECONFIG, ~/.kube/config or
 * in-cluster) stands in for a started control plane. stop() only deletes kop's temp files;
 * the cluster and whatever the tests created in it stay.
 */
export async function connectToExistingCluster(options: ControlPlaneOptions): Promise<ControlPlane> {
  const loaded = new KubeConfig();
  // Same search as kubectl: $KUBECONFIG (merged), ~/.kube/config, then in-cluster.
  loaded.loadFromDefault();
  const cluster = loaded.getCurrentCluster();
  const currentUser = loaded.getCurrentUser();
  if (!cluster || !currentUser) {
    throw new Error('USE_EXISTING_CLUSTER is set but the current kubeconfig has no current context with a cluster and user');
  }
  const kubeconfig = JSON.parse(loaded.exportConfig()) as Kubeconfig;
  const caData = cluster.caData
    ? Buffer.from(cluster.caData, 'base64').toString('utf8')
    : cluster.caFile
      ? readFileSync(cluster.caFile, 'utf8')
      : undefined;
  const dir = mkdtempSync(join(realpathSync(tmpdir()), 'kop-existing-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, kubeconfig);
  const server = cluster.server.replace(/\/+$/, '');
  const transport = new ApiServerTransport(server, {}, (requestOptions) => loaded.applyToHTTPSOptions(requestOptions));
  const admin: ControlPlaneUser = { name: currentUser.name, groups: [], kubeconfig, kubeconfigPath };
  let userCount = 0;
  let stopped = false;

  const plane: ControlPlane = {
    existingCluster: true,
    server,
    caData,
    kubeconfig,
    kubeconfigPath,
    admin,
    etcdUrl: undefined,
    binaries: undefined,
    dir,
    async addUser(user) {
      // No CA key here, so users are impersonated by the current user (who needs the
      // `impersonate` verb, as cluster admins have).
      const groups = user.groups ?? [];
      const impersonating: Kubeconfig = structuredClone(kubeconfig);
      const entry = impersonating.users.find((candidate) => candidate.name === currentUser.name);
      if (entry) {
        entry.user.as = user.name;
        if (groups.length > 0) entry.user['as-groups'] = groups;
      }
      userCount += 1;
      const path = join(dir, `kubeconfig-user-${userCount}`);
      writeKubeconfig(path, impersonating);
      return { name: user.name, groups, kubeconfig: impersonating, kubeconfigPath: path };
    },
    async installCRDs(sources: CRDSource | CRDSource[], installOptions) {
      return installCRDs(transport, Array.isArray(sources) ? sources : [sources], installOptions);
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
      transport.close();
      removeDirSync(dir);
    },
  };
  try {
    if (options.crds && options.crds.length > 0) await plane.installCRDs(options.crds);
  } catch (error) {
    await plane.stop();
    throw error;
  }
  return plane;
}

function notWithExistingCluster(method: string): Error {
  return new Error(`${method} needs the control plane kop/testing starts; it is not available with USE_EXISTING_CLUSTER`);
}
