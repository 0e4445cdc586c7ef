import type { KubernetesObject } from '../client/types/meta.js';
import type { Logger } from '../util/logger.js';

/** A group, version and kind, as admission requests name them. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A group, version and resource. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** Who sent the request, as the apiserver authenticated them. */
export interface AdmissionUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The operations an admission request can be for. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** admission.k8s.io/v1 AdmissionRequest: what the apiserver asks a webhook about. */
export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: AdmissionUserInfo;
  /** The new object (CREATE, UPDATE, CONNECT); absent for DELETE. */
  object?: KubernetesObject | null;
  /** The existing object (UPDATE, DELETE). */
  oldObject?: KubernetesObject | null;
  dryRun?: boolean;
  /** The operation's options (CreateOptions, UpdateOptions, DeleteOptions). */
  options?: Record<string, unknown> | null;
}

/** A metav1.Status: why a review was denied. */
export interface AdmissionStatus {
  status?: 'Success' | 'Failure';
  code?: number;
  reason?: string;
  message?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    /** One per field error. The cause type is under `reason` on the wire (metav1.StatusCause's `Type` is tagged `json:"reason"`). */
    causes?: { reason: string; message: string; field: string }[];
  };
}

/** admission.k8s.io/v1 AdmissionResponse: a webhook's answer. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  /** Base64 of an RFC 6902 patch (mutating webhooks). */
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** admission.k8s.io/v1 AdmissionReview: the body of both the request and the answer. */
export interface AdmissionReview {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** What a defaulter or validator knows about the request besides the object. */
export interface AdmissionContext {
  operation: AdmissionOperation;
  uid: string;
  userInfo: AdmissionUserInfo;
  /** True when the request is a dry run: do nothing outside the object (no side effects). */
  dryRun: boolean;
  namespace?: string;
  name?: string;
  subResource?: string;
  /** The server's logger with the webhook, uid, kind, namespace, name and operation attached. */
  logger: Logger;
  /** Aborted when the request's timeout passes, or when the server stops before the answer was sent. */
  signal: AbortSignal;
  /** The raw admission.k8s.io/v1 request. */
  request: AdmissionRequest;
}

/** Warnings returned to the client (kubectl prints them). */
export type AdmissionWarnings = readonly string[] | void;

/** Sets defaults on objects of one kind, for a mutating webhook. */
export interface Defaulter<T extends KubernetesObject> {
  /** Changes `object` in place (may be async); kop computes the JSON patch. Throw to deny the request. */
  default(object: T, context: AdmissionContext): void | Promise<void>;
}

/**
 * Checks objects of one kind, for a validating webhook. Return warnings (or nothing) to admit;
 * throw a {@link ValidationError} to deny with field causes, or any other error to deny with its message.
 */
export interface Validator<T extends KubernetesObject> {
  validateCreate(object: T, context: AdmissionContext): AdmissionWarnings | Promise<AdmissionWarnings>;
  validateUpdate(oldObject: T, newObject: T, context: AdmissionContext): AdmissionWarnings | Promise<AdmissionWarnings>;
  validateDelete(object: T, context: AdmissionContext): AdmissionWarnings | Promise<AdmissionWarnings>;
}
