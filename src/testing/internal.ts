/**
 * The public module of src/testing/ for kop's other folders, beside its entry points: what they use of it
 * that the package does not export (this file is no entry point, so no part of kop's public API).
 */
export { GoUnavailableError } from './build-envtest.js';
export { buildHelm } from './build-helm.js';
export { buildOtelcol } from './build-otelcol.js';
export { CertificateAuthority } from './certificates.js';
export { trackForCleanup } from './cleanup.js';
export { ManagedProcess } from './managed-process.js';
export type { ProcessExit } from './managed-process.js';
export { findFreePorts } from './ports.js';
export { setupEnvtest } from './setup-envtest.js';
export { normalizeKubernetesVersion } from './versions.js';
