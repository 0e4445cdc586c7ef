/**
 * The public module of src/init/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { PACK_DIR, installedFromRegistry, isPackedSpec, kopSourceProblem, packKop } from './kop-source.js';
export type { PackedKop } from './kop-source.js';
export { INIT_TEMPLATES, initTemplateData } from './init-template-data.js';
export type { InitTemplateData } from './init-template-data.js';
export { npmInstallTask, runInit, stageKopPack } from './run-init.js';
export type { InitOptions } from './run-init.js';
export { runUpdatePack } from './run-update-pack.js';
export type { UpdatePackOptions } from './run-update-pack.js';
