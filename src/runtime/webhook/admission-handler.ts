import type { KubernetesObject } from '../client/types/meta.js';
import type { ResourceType } from '../client/resource/options.js';
import type {
  AdmissionContext,
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionStatus,
  Defaulter,
  Validator,
} from './admission.js';
import { ValidationError, invalidMessage } from './field-error.js';
import { createJsonPatch } from './json-patch.js';
import {
  errorMessage,
  isPlainObject,
  statusReply,
  type WebhookCall,
  type WebhookHandler,
  type WebhookReply,
} from './webhook-handler.js';

const OPERATIONS: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/**
 * The handler of a mutating webhook: runs `defaulter.default` on a deep copy of the request's
 * object and answers with the JSON patch from the original to the defaulted copy (none when
 * nothing changed). DELETE and CONNECT are admitted unchanged: there is no new object to default.
 */
export function defaultingHandler<T extends KubernetesObject>(
  type: ResourceType<T>,
  defaulter: Defaulter<T>,
): WebhookHandler {
  return (call) =>
    admit(type, call, async (request, context) => {
      if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { uid: request.uid, allowed: true };
      const original = request.object;
      if (!isPlainObject(original))
        return denial(request.uid, 400, 'BadRequest', `${request.operation} review has no object`);
      const copy = structuredClone(original) as T;
      await defaulter.default(copy, context);
      // Through JSON, as the apiserver will read it: undefined properties vanish, Dates become strings.
      const defaulted = JSON.parse(JSON.stringify(copy)) as unknown;
      const patch = createJsonPatch(original, defaulted);
      if (patch.length === 0) return { uid: request.uid, allowed: true };
      return {
        uid: request.uid,
        allowed: true,
        patchType: 'JSONPatch',
        patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
      };
    });
}

/**
 * The handler of a validating webhook: CREATE runs `validateCreate(object)`, UPDATE
 * `validateUpdate(oldObject, object)`, DELETE `validateDelete(oldObject)`; CONNECT is admitted.
 * Returned warnings go back to the client.
 */
export function validatingHandler<T extends KubernetesObject>(
  type: ResourceType<T>,
  validator: Validator<T>,
): WebhookHandler {
  return (call) =>
    admit(type, call, async (request, context) => {
      const object = request.object;
      const oldObject = request.oldObject;
      let warnings: readonly string[] | void;
      switch (request.operation) {
        case 'CREATE':
          if (!isPlainObject(object)) return denial(request.uid, 400, 'BadRequest', 'CREATE review has no object');
          warnings = await validator.validateCreate(object as T, context);
          break;
        case 'UPDATE':
          if (!isPlainObject(object) || !isPlainObject(oldObject))
            return denial(request.uid, 400, 'BadRequest', 'UPDATE review needs object and oldObject');
          warnings = await validator.validateUpdate(oldObject as T, object as T, context);
          break;
        case 'DELETE':
          if (!isPlainObject(oldObject))
            return denial(request.uid, 400, 'BadRequest', 'DELETE review has no oldObject');
          warnings = await validator.validateDelete(oldObject as T, context);
          break;
        default:
          return { uid: request.uid, allowed: true };
      }
      const response: AdmissionResponse = { uid: request.uid, allowed: true };
      const texts = warningsOf(warnings);
      if (texts.length > 0) response.warnings = texts;
      return response;
    });
}

/**
 * Reads the review, runs `decide` with a context, and wraps its answer in an AdmissionReview.
 * A body that is no AdmissionReview v1 (or has no request uid to answer to) is an HTTP 400; a
 * throw in `decide` (user code) is a denial: 422 for a ValidationError, 403 for anything else.
 */
async function admit(
  type: ResourceType,
  call: WebhookCall,
  decide: (request: AdmissionRequest, context: AdmissionContext) => Promise<AdmissionResponse>,
): Promise<WebhookReply> {
  const { body } = call;
  if (!isPlainObject(body) || body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview') {
    return statusReply(
      400,
      'BadRequest',
      "expected an admission.k8s.io/v1 AdmissionReview; list only v1 in the webhook configuration's admissionReviewVersions",
    );
  }
  const request = body.request;
  if (!isPlainObject(request) || typeof request.uid !== 'string' || request.uid === '') {
    return statusReply(400, 'BadRequest', 'AdmissionReview has no request with a uid');
  }
  const uid = request.uid;
  const response = await answer(type, request, uid, call, decide);
  return { status: 200, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response } };
}

async function answer(
  type: ResourceType,
  raw: Record<string, unknown>,
  uid: string,
  call: WebhookCall,
  decide: (request: AdmissionRequest, context: AdmissionContext) => Promise<AdmissionResponse>,
): Promise<AdmissionResponse> {
  const operation = raw.operation as AdmissionOperation;
  if (!OPERATIONS.includes(operation))
    return denial(uid, 400, 'BadRequest', `unknown operation ${JSON.stringify(raw.operation)}`);
  const kind = raw.kind;
  if (!isPlainObject(kind) || kind.kind !== type.kind || (kind.group ?? '') !== type.group) {
    const got = isPlainObject(kind) ? `${String(kind.kind)}.${String(kind.group ?? '')}` : 'no kind';
    return denial(
      uid,
      400,
      'BadRequest',
      `this webhook serves ${type.kind}.${type.group}, not ${got}; check the rules of the webhook configuration`,
    );
  }
  const request = raw as unknown as AdmissionRequest;
  const context: AdmissionContext = {
    operation,
    uid,
    userInfo: isPlainObject(raw.userInfo) ? (raw.userInfo as AdmissionContext['userInfo']) : {},
    dryRun: raw.dryRun === true,
    namespace: typeof raw.namespace === 'string' && raw.namespace ? raw.namespace : undefined,
    name: typeof raw.name === 'string' && raw.name ? raw.name : undefined,
    subResource: typeof raw.subResource === 'string' && raw.subResource ? raw.subResource : undefined,
    logger: call.logger.child({ uid, kind: type.kind, namespace: raw.namespace, name: raw.name, operation }),
    signal: call.signal,
    request,
  };
  try {
    return await decide(request, context);
  } catch (error) {
    if (error instanceof ValidationError) {
      const name = objectName(request);
      const status: AdmissionStatus = {
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: invalidMessage({ group: type.group, kind: type.kind }, name, error.errors),
        details: {
          name,
          group: type.group,
          kind: type.kind,
          causes: error.errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
        },
      };
      return { uid, allowed: false, status };
    }
    context.logger.info('admission denied', { error: errorMessage(error) });
    return denial(uid, 403, 'Forbidden', errorMessage(error));
  }
}

/** The object's name as apierrors would name it: the request's name, else the object's. */
function objectName(request: AdmissionRequest): string {
  if (request.name) return request.name;
  const object = isPlainObject(request.object)
    ? request.object
    : isPlainObject(request.oldObject)
      ? request.oldObject
      : undefined;
  const metadata = object?.metadata;
  const name = isPlainObject(metadata) ? metadata.name : undefined;
  return typeof name === 'string' ? name : '';
}

function denial(uid: string, code: number, reason: string, message: string): AdmissionResponse {
  return { uid, allowed: false, status: { status: 'Failure', code, reason, message } };
}

/** The strings of what a validator returned: anything else (undefined, a non-array) means none. */
function warningsOf(warnings: unknown): string[] {
  if (!Array.isArray(warnings)) return [];
  return warnings.filter((w): w is string => typeof w === 'string' && w !== '');
}
