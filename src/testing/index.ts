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
  resolveControlPlaneOptions,
  type ControlPlane,
  type ControlPlaneOptions,
  type ControlPlaneUser,
  type StopApiServerOptions,
} from './control-plane.js';
export {
  findControlPlaneBinaries,
  findControlPlaneBinary,
  ControlPlaneBinariesNotFoundError,
  KUBEBUILDER_DEFAULT_ASSETS,
  type BinaryPathOptions,
  type ControlPlaneBinaryPaths,
} from './binaries.js';
export { envtestCacheDir, type Environment } from './cache-dir.js';
export { readCRDs, type CRDSource, type CustomResourceDefinition, type InstallCRDsOptions } from './crds.js';
export type { WebhookInstallOptions, WebhookServing } from './webhooks.js';
export type { Kubeconfig, KubeconfigCluster, KubeconfigUser } from './kubeconfig.js';
export { PINNED_KUBERNETES_VERSION, PINNED_ETCD_VERSION, type ControlPlaneBinary } from './versions.js';
// Round-trip tests of conversions from the CRD's schema (a generated test per spoke calls this).
export { arbitraryCustomResource } from './schema-arbitrary.js';
export {
  checkConversionRoundTrip,
  sampleCustomResource,
  type ConversionRoundTripOptions,
} from './conversion-round-trip.js';
