/**
 * The public module of src/dev/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { runDev } from './run-dev.js';
export { stopOnSignals } from './stop-on-signals.js';
