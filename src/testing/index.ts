/**
 * kop/testing: a real kube-apiserver and etcd for tests, like controller-runtime's envtest.
 *
 * ```ts
 * import { startControlPlane } from 'kop/testing';
 * const plane = await startControlPlane({
 *   crds: ['config/crd/bases'],
 *   webhooks: { paths: ['config/webhook'], conversionPatches: ['config/crd/patches'] },
 * });
 * // plane.kubeconfigPath, plane.kubeconfig, plane.addUser({ name: 'alice', groups: ['dev'] }) ...
 * // plane.webhook: { host, port, certDir, ... } for the manager's webhookServer option
 * await plane.stop();
 * ```
 */
export {
  startControlPlane,
  type ControlPlane,
  type ControlPlaneOptions,
  type ControlPlaneUser,
} from './control-plane.js';
export {
  findControlPlaneBinaries,
  findControlPlaneBinary,
  ControlPlaneBinariesNotFoundError,
  type BinaryPathOptions,
  type ControlPlaneBinaryPaths,
} from './binaries.js';
export { envtestCacheDir, type Environment } from './cache-dir.js';
export { readCRDs, type CRDSource, type CustomResourceDefinition, type InstallCRDsOptions } from './crds.js';
export type { WebhookInstallOptions, WebhookServing } from './webhooks.js';
export type { Kubeconfig } from './kubeconfig.js';
// The etcd version goes with the Kubernetes one; no test needs to name it.
export { PINNED_KUBERNETES_VERSION } from './versions.js';
// Round-trip tests of conversions from the CRD's schema (a generated test per spoke calls this).
export { arbitraryCustomResource } from './schema-arbitrary.js';
export { checkConversionRoundTrip, sampleCustomResource } from './conversion-round-trip.js';
