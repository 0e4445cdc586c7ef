/**
 * The public module of src/create-webhook/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { runCreateWebhook, stageCreateWebhook } from './run-create-webhook.js';
export type { CreateWebhookOptions } from './run-create-webhook.js';
