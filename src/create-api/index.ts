/**
 * The public module of src/create-api/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { ownedPlan, runCreateApi } from './run-create-api.js';
export type { CreateApiOptions, CreateApiStep } from './run-create-api.js';
export type {
  ApiControllerData,
  ApiControllerTestData,
  ApiTemplateData,
  ResourceTemplateData,
} from './api-template-data.js';
