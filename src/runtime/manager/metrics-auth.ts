import { createHash } from 'node:crypto';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { sleep, systemClock, type Clock } from '../util/clock.js';

/** Who a bearer token belongs to, as a TokenReview reports it. */
export interface AuthenticatedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The two reviews the filter asks the apiserver for; the manager's REST client posts them. */
export interface AccessReviewer {
  post<T>(
    path: string,
    body: unknown,
    query?: undefined,
    options?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<T>;
}

/** Options of {@link MetricsAccessFilter}; the defaults are controller-runtime's. */
export interface MetricsAccessFilterOptions {
  /** How long a token's review is reused, authenticated or not; default 1 min. */
  tokenCacheTtlMs?: number;
  /** How long an allowed decision is reused; default 5 min. */
  allowCacheTtlMs?: number;
  /** How long a denied decision is reused; default 30 s. */
  denyCacheTtlMs?: number;
  /** Largest number of cached tokens and of cached decisions; default 1024 each. */
  maxCacheEntries?: number;
  /** Timeout of one review request; default 10 s. */
  reviewTimeoutMs?: number;
  /** Attempts of a review that fails for want of an answer (connection, 5xx, 429); default 5, 0.5 s apart growing 1.5-fold. */
  reviewAttempts?: number;
  /** Wait before the second attempt; default 500 ms. */
  retryInitialMs?: number;
  logger?: Logger;
  clock?: Clock;
}

/** The filter's verdict on a request: 200 lets it through; otherwise the status and text to answer. */
export type AccessDecision = { status: 200; user: AuthenticatedUser } | { status: 401 | 403 | 500; message: string };

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: AuthenticatedUser;
  error?: string;
}

interface SubjectAccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/**
 * Authentication and authorisation of /metrics requests by the apiserver, as controller-runtime's
 * `filters.WithAuthenticationAndAuthorization`: the bearer token is checked with a TokenReview
 * (`authentication.k8s.io/v1`; no or an unknown token: 401), then the user with a
 * SubjectAccessReview (`authorization.k8s.io/v1`) for the non-resource URL of the request and the
 * verb of its method (`get`; not allowed: 403). The manager's service account needs `create` on
 * `tokenreviews` and `subjectaccessreviews` (config/rbac/metrics_auth_role.yaml), a scraper
 * `get` on the non-resource URL `/metrics` (config/rbac/metrics_reader_role.yaml).
 *
 * Reviews are cached, so a scrape every few seconds costs the apiserver nothing most of the
 * time: a token's review for a minute, an allowed decision for five, a denied one for thirty
 * seconds; concurrent requests with one token share one review. Failed reviews are retried
 * briefly and never cached; the request then gets 500.
 */
export class MetricsAccessFilter {
  private readonly tokens: TtlCache<AuthenticatedUser | null>;
  private readonly decisions: TtlCache<{ allowed: boolean; reason: string }>;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly options: Required<Omit<MetricsAccessFilterOptions, 'logger' | 'clock'>>;

  constructor(
    private readonly reviewer: () => AccessReviewer,
    options: MetricsAccessFilterOptions = {},
  ) {
    const clock = options.clock ?? systemClock;
    this.clock = clock;
    this.logger = options.logger ?? silentLogger;
    this.options = {
      tokenCacheTtlMs: options.tokenCacheTtlMs ?? 60_000,
      allowCacheTtlMs: options.allowCacheTtlMs ?? 5 * 60_000,
      denyCacheTtlMs: options.denyCacheTtlMs ?? 30_000,
      maxCacheEntries: options.maxCacheEntries ?? 1024,
      reviewTimeoutMs: options.reviewTimeoutMs ?? 10_000,
      reviewAttempts: Math.max(1, options.reviewAttempts ?? 5),
      retryInitialMs: options.retryInitialMs ?? 500,
    };
    this.tokens = new TtlCache(this.options.maxCacheEntries, clock);
    this.decisions = new TtlCache(this.options.maxCacheEntries, clock);
  }

  /** Decides on one request from its `Authorization` header, method and path. */
  async check(authorization: string | undefined, method: string, path: string): Promise<AccessDecision> {
    const token = bearerToken(authorization);
    if (token === undefined) return { status: 401, message: 'Unauthorized' };
    let user: AuthenticatedUser | null;
    try {
      user = await this.authenticate(token);
    } catch (error) {
      this.logger.error('metrics: authentication failed', { error: (error as Error).message });
      return { status: 500, message: 'Authentication failed' };
    }
    if (user === null) return { status: 401, message: 'Unauthorized' };
    const verb = method.toLowerCase();
    let decision: { allowed: boolean; reason: string };
    try {
      decision = await this.authorize(user, verb, path);
    } catch (error) {
      this.logger.error('metrics: authorization failed', { user: user.username, error: (error as Error).message });
      return { status: 500, message: `Authorization for user ${user.username} failed` };
    }
    if (!decision.allowed) {
      this.logger.debug('metrics: access denied', { user: user.username, verb, path, reason: decision.reason });
      return { status: 403, message: `Authorization denied for user ${user.username}` };
    }
    return { status: 200, user };
  }

  /** The token's user, or null when the apiserver does not know the token. */
  private authenticate(token: string): Promise<AuthenticatedUser | null> {
    // The cache keeps a digest of the token, never the token.
    const key = createHash('sha256').update(token).digest('base64');
    return this.tokens.getOrLoad(key, async () => {
      const review = await this.review<{ status?: TokenReviewStatus }>('/apis/authentication.k8s.io/v1/tokenreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token },
      });
      const status = review.status ?? {};
      const user = status.authenticated && status.user?.username ? status.user : null;
      if (!user && status.error) this.logger.debug('metrics: token not authenticated', { error: status.error });
      return { value: user, ttlMs: this.options.tokenCacheTtlMs };
    });
  }

  private authorize(
    user: AuthenticatedUser,
    verb: string,
    path: string,
  ): Promise<{ allowed: boolean; reason: string }> {
    const key = JSON.stringify([
      user.username,
      user.uid ?? '',
      [...(user.groups ?? [])].sort(),
      sortedExtra(user.extra),
      verb,
      path,
    ]);
    return this.decisions.getOrLoad(key, async () => {
      const review = await this.review<{ status?: SubjectAccessReviewStatus }>(
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            ...(user.uid ? { uid: user.uid } : {}),
            ...(user.groups ? { groups: user.groups } : {}),
            ...(user.extra ? { extra: user.extra } : {}),
            nonResourceAttributes: { path, verb },
          },
        },
      );
      const status = review.status ?? {};
      const allowed = status.allowed === true && status.denied !== true;
      const reason = status.reason || status.evaluationError || '';
      return {
        value: { allowed, reason },
        ttlMs: allowed ? this.options.allowCacheTtlMs : this.options.denyCacheTtlMs,
      };
    });
  }

  /** Posts a review, retrying when no answer came (apiserver restarting, overloaded). */
  private async review<T>(path: string, body: unknown): Promise<T> {
    let waitMs = this.options.retryInitialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.reviewer().post<T>(path, body, undefined, { timeoutMs: this.options.reviewTimeoutMs });
      } catch (error) {
        if (attempt >= this.options.reviewAttempts || !retriable(error)) throw error;
        await sleep(waitMs * (1 + (Math.random() - 0.5) * 0.4), undefined, this.clock);
        waitMs *= 1.5;
      }
    }
  }
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

function sortedExtra(extra: Record<string, string[]> | undefined): [string, string[]][] {
  return Object.entries(extra ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A failure that another attempt may not have: no answer, a timeout, 429 or 5xx. A 4xx answer is final. */
function retriable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'number') return code === 429 || code >= 500;
  return true;
}

/**
 * A small cache whose entries expire after their own TTL, bounded in size (the oldest entry
 * goes first), that shares one load between concurrent callers of a key. Failed loads are
 * not kept.
 */
class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly maxEntries: number,
    private readonly clock: Clock,
  ) {}

  getOrLoad(key: string, load: () => Promise<{ value: V; ttlMs: number }>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > this.clock.now()) return Promise.resolve(entry.value);
    if (entry) this.entries.delete(key);
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load()
        .then(({ value, ttlMs }) => {
          if (ttlMs > 0) {
            this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
            while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
          }
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}
