/**
 * The public module of src/helm/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { stageHelmChart } from './run-helm.js';
