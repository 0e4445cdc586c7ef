/**
 * The public module of src/edit/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { runEdit } from './run-edit-plugins.js';
export { runEditProject } from './run-edit-project.js';
export type { EditProjectOptions } from './run-edit-project.js';
