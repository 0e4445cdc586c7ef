/**
 * The public module of src/clientgen/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { generateApplyConfigurations } from './generate-apply-configurations.js';
export { generateClients } from './generate-clients.js';
