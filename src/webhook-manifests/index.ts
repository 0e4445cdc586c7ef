/**
 * The public module of src/webhook-manifests/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { WEBHOOK_MANIFESTS, buildWebhookConfigurations, formatWebhookConfigurations } from './webhook-configuration.js';
export {
  CRD_KUSTOMIZE_CONFIG,
  WEBHOOK_KUSTOMIZATION,
  WEBHOOK_REPLACEMENTS,
  convertingCrds,
  formatConversionPatch,
  formatCrdKustomizeConfig,
  formatWebhookKustomization,
  formatWebhookReplacements,
} from './webhook-kustomize.js';
export type { ConvertingKind } from './webhook-kustomize.js';
export { WEBHOOK_SCAN_PREFIX, parseWebhookMarkers } from './webhook-markers.js';
