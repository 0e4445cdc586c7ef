// kop/runtime/webhook: admission and conversion webhooks (controller-runtime's webhook,
// webhook/admission and webhook/conversion packages). Register them with `manager.webhook(type)`
// and `manager.conversion(hubType)`; what a defaulter and a validator use is on kop/runtime.
export type { AdmissionOperation, AdmissionRequest, AdmissionResponse, AdmissionReview } from './admission.js';
export { defaultingHandler, validatingHandler } from './admission-handler.js';
export { ConversionBuilder, WebhookBuilder, defaultingPath, validatingPath, type WebhookRegistrar } from './builder.js';
export { ConversionRegistry, type PartialObject, type SpokeConversion } from './conversion.js';
export type { FieldErrorType } from './field-error.js';
export type { WebhookHandler } from './webhook-handler.js';
// The default certDir is named in WebhookServerOptions' docs; a program has no use for the constant.
export { WebhookServer, type WebhookServerOptions } from './webhook-server.js';
