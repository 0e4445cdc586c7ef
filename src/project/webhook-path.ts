/** The check of a custom webhook path (`--defaulting-path`, `--validation-path`, PROJECT's `defaultingPath`/`validationPath`). */
const WEBHOOK_PATH_SEGMENT = /^[A-Za-z0-9._~-]+$/;
/** Paths the manager serves itself: a webhook path may not take them. */
const RESERVED_WEBHOOK_PATHS = new Set(['/convert', '/healthz', '/readyz', '/metrics']);

/**
 * A webhook path from `--defaulting-path` / `--validation-path`: it ends up in the marker, the
 * manager's route and the Service reference of the webhook configuration, so it is a plain URL
 * path of unreserved characters (RFC 3986) in `/`-separated segments, never `.` or `..`.
 */
export function checkWebhookPath(value: string): true | string {
  const shape =
    'a webhook path is "/" then segments of letters, digits, ".", "_", "~" and "-" separated by single "/" (e.g. "/custom-mutate-memcached")';
  if (!value.startsWith('/')) return `invalid webhook path ${JSON.stringify(value)}: it must start with "/"; ${shape}`;
  if (value.length > 256) return `invalid webhook path: ${value.length} characters, at most 256`;
  const segments = value.slice(1).split('/');
  if (segments.some((segment) => !WEBHOOK_PATH_SEGMENT.test(segment) || segment === '.' || segment === '..')) {
    return `invalid webhook path ${JSON.stringify(value)}: ${shape}`;
  }
  if (RESERVED_WEBHOOK_PATHS.has(value))
    return `invalid webhook path ${JSON.stringify(value)}: the manager serves ${value} itself`;
  return true;
}
