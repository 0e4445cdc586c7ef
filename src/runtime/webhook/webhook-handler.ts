import type { Logger } from '../util/logger.js';

/** One request to a webhook path, its body already read and parsed as JSON. */
export interface WebhookCall {
  /** The parsed JSON body. */
  body: unknown;
  /** The request URL (the apiserver adds `?timeout=10s`). */
  url: URL;
  /** Aborted when the request's timeout passes, or when the server stops before the answer was sent. */
  signal: AbortSignal;
  logger: Logger;
}

/** The HTTP answer of a webhook: a status code and a JSON body. */
export interface WebhookReply {
  status: number;
  body: unknown;
}

/**
 * Serves one path of the webhook server. It should not throw: a review it cannot read is a 400
 * reply, a failure of user code a denial. (A throw still becomes a 500, never a crash.)
 */
export type WebhookHandler = (call: WebhookCall) => Promise<WebhookReply>;

/** An HTTP error reply with a metav1.Status body, for requests that are not a review at all. */
export function statusReply(code: number, reason: string, message: string): WebhookReply {
  return { status: code, body: { apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason, message } };
}

/** A plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message of anything thrown, bounded so a hostile or runaway error cannot fill a response. */
export function errorMessage(error: unknown): string {
  let text: string;
  if (error instanceof Error) text = error.message;
  else {
    try {
      text = typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
    } catch {
      text = String(error);
    }
  }
  return text.length > 4096 ? `${text.slice(0, 4096)}…` : text;
}
