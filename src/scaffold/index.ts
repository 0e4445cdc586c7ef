/**
 * The public module of src/scaffold/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { BOILERPLATE_FILE, boilerplateComment, loadBoilerplate } from './boilerplate.js';
export { flushTree, runPostFlushTask } from './flush-tree.js';
export type { FlushResult, PostFlushTask } from './flush-tree.js';
export { GENERATED_HEADER, isGenerated, withHeader } from './header.js';
export { insertIntoFile, markerComment } from './insert.js';
export type { Insertion } from './insert.js';
export { mergeLines } from './line-diff.js';
export type { MergeLabels } from './line-diff.js';
export { commentText, jsonLiteral, renderTemplateDir, templateFolder, withTemplateData, yamlScalar } from './render.js';
export type { TemplateFolder } from './render.js';
export { VirtualTree } from './tree.js';
export { generatedYaml, generatedYamlDocuments } from './yaml.js';
