/**
 * `kop import crd --from-cluster <name>...`: the CRDs as the cluster serves them, read with
 * kop/runtime's client and configuration loading (the manager's: --kubeconfig, KUBECONFIG,
 * in-cluster, ~/.kube/config), loaded only when the flag is used.
 */
import { KopError } from '../base/index.js';
import type { CrdDocument } from './crd-documents.js';

export interface ClusterOptions {
  kubeconfig?: string;
  context?: string;
}

/** GETs each named CRD from the apiserver; a missing one is an error naming it. */
export async function readClusterCrds(names: readonly string[], options: ClusterOptions): Promise<CrdDocument[]> {
  const [{ RestClient }, { isNotFound }] = await Promise.all([
    import('../runtime/client/index.js'),
    import('../runtime/index.js'),
  ]);
  let rest;
  try {
    rest = RestClient.load({ kubeconfig: options.kubeconfig, context: options.context });
  } catch (error) {
    throw new KopError(`--from-cluster: ${(error as Error).message}`, 'pass --kubeconfig, or set KUBECONFIG');
  }
  try {
    const documents: CrdDocument[] = [];
    for (const name of names) {
      try {
        const value = await rest.request<unknown>({
          method: 'GET',
          path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`,
        });
        documents.push({ where: `cluster:${name}`, value });
      } catch (error) {
        if (isNotFound(error))
          throw new KopError(
            `--from-cluster: the cluster has no CRD named ${name}`,
            'name CRDs as <plural>.<group>, e.g. certificates.cert-manager.io (kubectl get crd lists them)',
          );
        throw new KopError(`--from-cluster: reading CRD ${name}: ${(error as Error).message}`);
      }
    }
    return documents;
  } finally {
    rest.close();
  }
}
