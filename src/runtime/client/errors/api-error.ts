import type { Status, StatusCause } from '../../../api/index.js';

/**
 * A request the apiserver (or something between us and it) answered with a failure.
 * Carries the apiserver's Status so callers can branch on `reason` and field `causes`.
 */
export class ApiError extends Error {
  /** HTTP status code of the response (or the Status's own code for watch ERROR events). */
  readonly code: number;
  /** Machine-readable reason from the Status, e.g. `NotFound`, `Conflict`, `Invalid`; `Unknown` when absent. */
  readonly reason: string;
  /** The Status the apiserver sent, or one synthesised from a non-Status body. */
  readonly status: Status;
  /** HTTP method and path of the failed request, for messages and logs. */
  readonly method: string;
  readonly path: string;

  constructor(status: Status, method: string, path: string) {
    const code = status.code ?? 0;
    const reason = status.reason || 'Unknown';
    super(`${method} ${path}: ${code} ${reason}: ${status.message ?? '(no message)'}`);
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
    this.status = status;
    this.method = method;
    this.path = path;
  }

  /** Field-level causes (`details.causes`), e.g. each invalid field of a 422. */
  get causes(): StatusCause[] {
    return this.status.details?.causes ?? [];
  }

  /** Seconds the server asked us to wait before retrying, when it said so. */
  get retryAfterSeconds(): number | undefined {
    return this.status.details?.retryAfterSeconds;
  }
}

/** Builds the Status for a response whose body is not a Status (proxies, plain-text errors). */
export function statusFromResponse(code: number, body: string): Status {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isStatusObject(parsed)) {
      const message = typeof parsed.message === 'string' ? cut(parsed.message, MAX_STATUS_MESSAGE) : parsed.message;
      return { ...parsed, message, code: parsed.code ?? code };
    }
  } catch {
    // Not JSON: fall through and keep the start of the raw text as the message.
  }
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason: reasonForCode(code),
    message: cut(body.trim(), MAX_RAW_MESSAGE) || `HTTP ${code}`,
  };
}

/** How much of an error body becomes the message: a proxy's page or a hostile server's answer can be megabytes. */
const MAX_RAW_MESSAGE = 1024;
/** The apiserver's own messages (a 422 listing every invalid field) are kept longer. */
const MAX_STATUS_MESSAGE = 16 * 1024;

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** True when a decoded JSON value is a meta/v1 Status. */
export function isStatusObject(value: unknown): value is Status {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

/** The reason the apiserver would use for a bare HTTP code, as client-go guesses it. */
function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return 'Unknown';
  }
}

/** The reasons the apiserver defines (meta/v1 StatusReason); any other one says nothing by itself. */
const KNOWN_REASONS = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

function reasonOrCode(err: unknown, reasons: readonly string[], code: number): boolean {
  if (!(err instanceof ApiError)) return false;
  if (reasons.includes(err.reason)) return true;
  // Fall back to the code only when the reason is none the apiserver defines (missing, or an
  // admission webhook's own), so a 409 AlreadyExists is never a conflict.
  return !KNOWN_REASONS.has(err.reason) && err.code === code;
}

/** 404: the object (or its namespace, or the resource type) does not exist. */
export function isNotFound(err: unknown): err is ApiError {
  return reasonOrCode(err, ['NotFound'], 404);
}

/** 409 Conflict: stale resourceVersion on update, or a server-side apply field conflict. Re-read and retry. */
export function isConflict(err: unknown): err is ApiError {
  return reasonOrCode(err, ['Conflict'], 409);
}

/** 409 AlreadyExists: create of a name that is taken. */
export function isAlreadyExists(err: unknown): err is ApiError {
  return reasonOrCode(err, ['AlreadyExists'], 409);
}

/** 422 Invalid: validation failed; see `causes` for the fields. */
export function isInvalid(err: unknown): err is ApiError {
  return reasonOrCode(err, ['Invalid'], 422);
}

/** 403 Forbidden: RBAC denied the request (or admission refused it). */
export function isForbidden(err: unknown): err is ApiError {
  return reasonOrCode(err, ['Forbidden'], 403);
}

/** 401 Unauthorized: the credentials were missing or rejected. */
export function isUnauthorized(err: unknown): err is ApiError {
  return reasonOrCode(err, ['Unauthorized'], 401);
}

/**
 * 410 Gone / Expired: the resourceVersion is too old (watch or list continue token).
 * Informers relist when they see this.
 */
export function isGone(err: unknown): err is ApiError {
  return reasonOrCode(err, ['Gone', 'Expired'], 410) || (err instanceof ApiError && err.code === 410);
}

/** 400 BadRequest. */
export function isBadRequest(err: unknown): err is ApiError {
  return reasonOrCode(err, ['BadRequest'], 400);
}

/** 429 TooManyRequests: server-side throttling (API priority and fairness). */
export function isTooManyRequests(err: unknown): err is ApiError {
  return reasonOrCode(err, ['TooManyRequests'], 429);
}

/** 504 / server timeout. */
export function isTimeout(err: unknown): err is ApiError {
  return reasonOrCode(err, ['Timeout', 'ServerTimeout'], 504);
}

/**
 * The request named a resourceVersion newer than the apiserver (its watch cache) has seen yet,
 * typically one read from another apiserver of the cluster: a 504 Timeout whose cause is
 * `ResourceVersionTooLarge`. List again without a resourceVersion, or wait and retry.
 */
export function isResourceVersionTooLarge(err: unknown): err is ApiError {
  return isTimeout(err) && err.causes.some((cause) => cause.reason === 'ResourceVersionTooLarge');
}

/** A request that failed before the apiserver answered: connection refused, TLS error, client timeout. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(`${method} ${path}: ${message}`, options);
    this.name = 'TransportError';
  }
}

/** The per-request timeout elapsed before the response completed. */
export class RequestTimeoutError extends TransportError {
  constructor(
    method: string,
    path: string,
    readonly timeoutMs: number,
  ) {
    super(`timed out after ${timeoutMs}ms`, method, path);
    this.name = 'RequestTimeoutError';
  }
}
