// kop/runtime/webhook: admission and conversion webhooks (controller-runtime's webhook,
// webhook/admission and webhook/conversion packages). Register them with `manager.webhook(type)`
// and `manager.conversion(hubType)`; the names a webhook's code uses are also on kop/runtime.
export type {
  AdmissionContext,
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionStatus,
  AdmissionUserInfo,
  AdmissionWarnings,
  Defaulter,
  GroupVersionKind,
  GroupVersionResource,
  Validator,
} from './admission.js';
export { defaultingHandler, validatingHandler } from './admission-handler.js';
export { ConversionBuilder, WebhookBuilder, defaultingPath, validatingPath, type WebhookRegistrar } from './builder.js';
export { ConversionRegistry, type ConversionReview, type SpokeConversion } from './conversion.js';
export { FieldError, ValidationError, type FieldErrorType } from './field-error.js';
export { createJsonPatch, type JsonPatchOperation } from './json-patch.js';
export type { WebhookCall, WebhookHandler, WebhookReply } from './webhook-handler.js';
export {
  DEFAULT_CERT_DIR,
  WebhookServer,
  type WebhookMetrics,
  type WebhookPathMetrics,
  type WebhookServerOptions,
} from './webhook-server.js';
