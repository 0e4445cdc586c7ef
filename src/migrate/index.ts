/**
 * The public module of src/migrate/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { runMigrateStorage } from './run-migrate-storage.js';
export type { MigrateStorageOptions } from './run-migrate-storage.js';
