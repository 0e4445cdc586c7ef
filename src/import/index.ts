/**
 * The public module of src/import/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export {
  checkExternalApiFlags,
  hasExternalApiFlags,
  isCrdSource,
  isGoModule,
  resolveExternalKind,
} from './external-api.js';
export type { ExternalApiFlags } from './external-api.js';
export { runImportCrd } from './run-import-crd.js';
export type { ImportCrdOptions } from './run-import-crd.js';
