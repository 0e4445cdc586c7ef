/**
 * The public module of src/generate/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { clientGenerator } from './generate-client.js';
export { manifestsGenerator } from './generate-manifests.js';
export type { GenerateOptions, GeneratorEntry } from './generator.js';
export { runGenerate } from './run-generate.js';
