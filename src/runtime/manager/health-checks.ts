/**
 * The answers of /healthz and /readyz, with the conventions the apiserver and controller-runtime
 * share: `ok` when every check passes, a `[+]`/`[-]` line per check otherwise (or with
 * `?verbose`), `?exclude=<name>` (repeatable) to leave checks out, and `/<path>/<name>` to run a
 * single check, which kubelet probes and humans use to see what exactly is failing.
 */

/** A named check behind /healthz or /readyz: resolve to pass, throw (or return false) to fail. */
export type HealthCheck = () => boolean | void | Promise<boolean | void>;

/** An HTTP answer for the probe server. */
export interface HealthAnswer {
  status: number;
  body: string;
}

/** Answers a request for `url` under `basePath` (`/healthz` or `/readyz`) from `checks`. */
export async function answerHealthChecks(
  checks: ReadonlyMap<string, HealthCheck>,
  basePath: string,
  url: URL,
): Promise<HealthAnswer> {
  const sub = url.pathname.slice(basePath.length).replace(/^\/+/, '');
  if (sub !== '') {
    const check = checks.get(sub);
    if (!check) return { status: 404, body: `no check named "${sub}"\n` };
    const failure = await runCheck(check);
    return failure === undefined
      ? { status: 200, body: 'ok' }
      : { status: 500, body: `internal server error: ${failure}\n` };
  }
  const excluded = new Set(url.searchParams.getAll('exclude'));
  const lines: string[] = [];
  let failed = false;
  for (const [name, check] of checks) {
    if (excluded.delete(name)) {
      lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    const failure = await runCheck(check);
    if (failure === undefined) lines.push(`[+]${name} ok`);
    else {
      failed = true;
      lines.push(`[-]${name} failed: ${failure}`);
    }
  }
  // Names that matched no check are told, not silently ignored: a typo would hide nothing.
  if (excluded.size > 0)
    lines.push(
      `warn: some health checks cannot be excluded: no matches for ${[...excluded].map((n) => `"${n}"`).join(', ')}`,
    );
  const verbose = url.searchParams.has('verbose');
  if (!failed) return { status: 200, body: verbose ? `${lines.join('\n')}\ncheck passed\n` : 'ok' };
  return { status: 500, body: `${lines.join('\n')}\ncheck failed\n` };
}

/** undefined when the check passed, else why it failed. */
async function runCheck(check: HealthCheck): Promise<string | undefined> {
  try {
    if ((await check()) === false) return 'check returned false';
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
