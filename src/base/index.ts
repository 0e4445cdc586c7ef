/**
 * The public module of src/base/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { askChecked, askYesNo, requireValid } from './ask.js';
export type { NameCheck } from './ask.js';
export type { Context, Exec, Output, Styles } from './context.js';
export { editDistance } from './edit-distance.js';
export { FileExistsError, KopError, UsageError } from './errors.js';
export type { JSONValue } from './json-value.js';
export { createContext } from './make-context.js';
export { kopPackageRoot, kopVersion, templatesRoot } from './paths.js';
export { loadTsMorph } from './ts-morph.js';
