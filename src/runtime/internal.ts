/**
 * The public module of src/runtime/ for kop's other folders, beside its entry points: what they use of it
 * that the package does not export (this file is no entry point, so no part of kop's public API).
 */
export type { KubeconfigCluster, KubeconfigUser } from './client/config/kubeconfig.js';
export { apiVersionOf } from './client/resource/options.js';
export type { ResourceType } from './client/resource/options.js';
export { Transport } from './client/rest/transport.js';
export { MIGRATION_ANNOTATION, migrateStorageVersion } from './migration/storage-version-migration.js';
export type { StorageMigrationProgress, StorageMigrationResult } from './migration/storage-version-migration.js';
