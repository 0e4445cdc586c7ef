/** The Kubernetes release kop's test control plane is built from (envtest/kubernetes). */
export const PINNED_KUBERNETES_VERSION = '1.36.3';

/** The etcd release kop's test control plane is built from (envtest/etcd). */
export const PINNED_ETCD_VERSION = '3.6.16';

/** The control-plane programs kop/testing runs or offers, by their file names. */
export const CONTROL_PLANE_BINARIES = ['kube-apiserver', 'etcd', 'kubectl'] as const;

/** One of {@link CONTROL_PLANE_BINARIES}. */
export type ControlPlaneBinary = (typeof CONTROL_PLANE_BINARIES)[number];

/** Accepts "1.36.3" or "v1.36.3" and returns "1.36.3"; rejects anything else. */
export function normalizeKubernetesVersion(version: string): string {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(version.trim());
  if (!match) throw new Error(`"${version}" is not a Kubernetes release version like 1.36.3`);
  return `${match[1]}.${match[2]}.${match[3]}`;
}
