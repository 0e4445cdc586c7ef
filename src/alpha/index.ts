/**
 * The public module of src/alpha/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { runAlphaGenerate } from './run-alpha-generate.js';
export type { AlphaGenerateOptions } from './run-alpha-generate.js';
export { runAlphaUpdate } from './run-alpha-update.js';
export type { AlphaUpdateOptions } from './run-alpha-update.js';
