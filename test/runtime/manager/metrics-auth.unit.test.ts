/**
 * The metrics access filter's decisions and caching, against a scripted reviewer: what each
 * review answer becomes, how long each kind of answer is reused, that failures are retried and
 * never cached, and that the token itself is never kept.
 */
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { MetricsAccessFilter, bearerToken, type AccessReviewer } from '../../../src/runtime/manager/metrics-auth.js';
import { createSelfSignedCertificate } from '../../../src/runtime/manager/self-signed-certificate.js';
import { ApiError } from '../../../src/runtime/index.js';
import { TransportError } from '../../../src/runtime/client/index.js';
import { FakeClock } from '../controller/fake-clock.js';

type Answer = { status: Record<string, unknown> } | Error;

/** A reviewer that answers TokenReviews and SubjectAccessReviews from tables and records calls. */
function scriptedReviewer(answers: {
  token: (token: string) => Answer;
  access: (spec: Record<string, unknown>) => Answer;
}) {
  const calls: { path: string; body: { spec: Record<string, unknown> } }[] = [];
  const reviewer: AccessReviewer = {
    async post<T>(path: string, body: unknown): Promise<T> {
      const review = body as { spec: Record<string, unknown> };
      calls.push({ path, body: review });
      const answer = path.endsWith('/tokenreviews')
        ? answers.token(review.spec.token as string)
        : answers.access(review.spec);
      if (answer instanceof Error) throw answer;
      return answer as T;
    },
  };
  return {
    reviewer,
    calls,
    count: (kind: 'tokenreviews' | 'subjectaccessreviews') => calls.filter((c) => c.path.endsWith(kind)).length,
  };
}

const users: Record<string, { username: string; groups: string[] }> = {
  reader: { username: 'system:serviceaccount:monitoring:prometheus', groups: ['system:serviceaccounts'] },
  other: { username: 'system:serviceaccount:default:other', groups: ['system:serviceaccounts'] },
};

function standardReviewer() {
  return scriptedReviewer({
    token: (token) =>
      users[token]
        ? { status: { authenticated: true, user: users[token] } }
        : { status: { authenticated: false, error: 'invalid bearer token' } },
    access: (spec) => ({ status: { allowed: spec.user === users.reader!.username, reason: 'RBAC' } }),
  });
}

describe('MetricsAccessFilter', () => {
  const cases = [
    { name: 'no Authorization header', header: undefined, want: { status: 401, message: 'Unauthorized' } },
    {
      name: 'a scheme other than Bearer',
      header: 'Basic dXNlcjpwYXNz',
      want: { status: 401, message: 'Unauthorized' },
    },
    { name: 'an unknown token', header: 'Bearer nobody', want: { status: 401, message: 'Unauthorized' } },
    {
      name: 'a user without the right',
      header: 'Bearer other',
      want: { status: 403, message: 'Authorization denied for user system:serviceaccount:default:other' },
    },
    { name: 'a metrics reader', header: 'bearer reader', want: { status: 200, user: users.reader } },
  ];
  for (const { name, header, want } of cases) {
    it(name, async () => {
      const { reviewer } = standardReviewer();
      expect(await new MetricsAccessFilter(() => reviewer).check(header, 'GET', '/metrics')).toEqual(want);
    });
  }

  it('asks about the non-resource URL and the verb of the method, with the whole user', async () => {
    const { reviewer, calls } = standardReviewer();
    await new MetricsAccessFilter(() => reviewer).check('Bearer reader', 'GET', '/metrics');
    expect(calls.map((c) => c.body)).toEqual([
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'reader' } },
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: users.reader!.username,
          groups: users.reader!.groups,
          nonResourceAttributes: { path: '/metrics', verb: 'get' },
        },
      },
    ]);
  });

  it('reuses a token review for a minute, an allowed decision for five, a denied one for thirty seconds', async () => {
    const clock = new FakeClock();
    const { reviewer, count } = standardReviewer();
    const filter = new MetricsAccessFilter(() => reviewer, { clock });
    await filter.check('Bearer reader', 'GET', '/metrics');
    await filter.check('Bearer other', 'GET', '/metrics');
    await filter.check('Bearer nobody', 'GET', '/metrics');
    expect([count('tokenreviews'), count('subjectaccessreviews')]).toEqual([3, 2]);

    clock.advance(29_000);
    await filter.check('Bearer reader', 'GET', '/metrics');
    await filter.check('Bearer other', 'GET', '/metrics');
    await filter.check('Bearer nobody', 'GET', '/metrics');
    expect([count('tokenreviews'), count('subjectaccessreviews')]).toEqual([3, 2]);

    clock.advance(2_000); // 31 s: the denial expired, the allowance did not
    await filter.check('Bearer reader', 'GET', '/metrics');
    expect(await filter.check('Bearer other', 'GET', '/metrics')).toMatchObject({ status: 403 });
    expect([count('tokenreviews'), count('subjectaccessreviews')]).toEqual([3, 3]);

    clock.advance(30_000); // 61 s: token reviews expired
    await filter.check('Bearer reader', 'GET', '/metrics');
    await filter.check('Bearer nobody', 'GET', '/metrics');
    expect([count('tokenreviews'), count('subjectaccessreviews')]).toEqual([5, 3]);

    clock.advance(240_000); // 5 min 1 s: the allowance expired too
    await filter.check('Bearer reader', 'GET', '/metrics');
    expect([count('tokenreviews'), count('subjectaccessreviews')]).toEqual([6, 4]);
  });

  it('shares one review among concurrent requests with one token', async () => {
    const { reviewer, count } = standardReviewer();
    const filter = new MetricsAccessFilter(() => reviewer);
    const decisions = await Promise.all(
      Array.from({ length: 20 }, () => filter.check('Bearer reader', 'GET', '/metrics')),
    );
    expect(decisions.every((d) => d.status === 200)).toBe(true);
    expect([count('tokenreviews'), count('subjectaccessreviews')]).toEqual([1, 1]);
  });

  it('retries a review that got no answer, answers 500 when it never does, and caches no failure', async () => {
    let failures = 2;
    const { reviewer, count } = scriptedReviewer({
      token: () =>
        failures-- > 0
          ? new TransportError('connect ECONNREFUSED', 'POST', '/apis/authentication.k8s.io/v1/tokenreviews')
          : { status: { authenticated: true, user: users.reader } },
      access: () => ({ status: { allowed: true } }),
    });
    const filter = new MetricsAccessFilter(() => reviewer, { retryInitialMs: 1 });
    expect((await filter.check('Bearer reader', 'GET', '/metrics')).status).toBe(200);
    expect(count('tokenreviews')).toBe(3);

    const down = scriptedReviewer({
      token: () => new TransportError('connect ECONNREFUSED', 'POST', '/apis/authentication.k8s.io/v1/tokenreviews'),
      access: () => ({ status: { allowed: true } }),
    });
    const failing = new MetricsAccessFilter(() => down.reviewer, { retryInitialMs: 1, reviewAttempts: 3 });
    expect(await failing.check('Bearer reader', 'GET', '/metrics')).toEqual({
      status: 500,
      message: 'Authentication failed',
    });
    expect(await failing.check('Bearer reader', 'GET', '/metrics')).toEqual({
      status: 500,
      message: 'Authentication failed',
    });
    expect(down.count('tokenreviews')).toBe(6);
  });

  it('does not retry a review the apiserver refused (the manager lacks the role): 500 at once', async () => {
    const forbidden = new ApiError(
      {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Forbidden',
        code: 403,
        message: 'tokenreviews.authentication.k8s.io is forbidden',
      },
      'POST',
      '/apis/authentication.k8s.io/v1/tokenreviews',
    );
    const { reviewer, count } = scriptedReviewer({
      token: () => forbidden,
      access: () => ({ status: { allowed: true } }),
    });
    expect(
      await new MetricsAccessFilter(() => reviewer, { retryInitialMs: 1 }).check('Bearer reader', 'GET', '/metrics'),
    ).toEqual({
      status: 500,
      message: 'Authentication failed',
    });
    expect(count('tokenreviews')).toBe(1);
  });

  it('treats an explicit denial as a denial even beside allowed, and keeps the cache bounded', async () => {
    const { reviewer, count } = scriptedReviewer({
      token: (token) => ({ status: { authenticated: true, user: { username: token } } }),
      access: () => ({ status: { allowed: true, denied: true } }),
    });
    const filter = new MetricsAccessFilter(() => reviewer, { maxCacheEntries: 2 });
    expect((await filter.check('Bearer a', 'GET', '/metrics')).status).toBe(403);
    await filter.check('Bearer b', 'GET', '/metrics');
    await filter.check('Bearer c', 'GET', '/metrics');
    await filter.check('Bearer a', 'GET', '/metrics'); // evicted: reviewed again
    expect(count('tokenreviews')).toBe(4);
  });
});

describe('bearerToken', () => {
  const cases = [
    { given: 'Bearer abc.def', want: 'abc.def' },
    { given: 'bearer   abc', want: 'abc' },
    { given: 'Bearer', want: undefined },
    { given: 'Bearer a b', want: undefined },
    { given: 'Token abc', want: undefined },
    { given: undefined, want: undefined },
  ];
  for (const { given, want } of cases) it(String(given), () => expect(bearerToken(given)).toBe(want));
});

describe('createSelfSignedCertificate', () => {
  it('makes a valid self-signed serving certificate for the hosts, one year long', () => {
    const now = new Date('2026-05-01T12:00:00Z');
    const pair = createSelfSignedCertificate({ hosts: ['metrics.example', '10.0.0.1', 'fd00::1'], now });
    const cert = new X509Certificate(pair.cert);
    expect(cert.subject).toBe('CN=metrics.example');
    expect(cert.subjectAltName).toBe('DNS:metrics.example, IP Address:10.0.0.1, IP Address:FD00:0:0:0:0:0:0:1');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(new Date(cert.validFrom).getTime()).toBe(now.getTime() - 3_600_000);
    expect(new Date(cert.validTo).getTime()).toBe(now.getTime() + 365 * 24 * 3_600_000);
    expect(() => tls.createSecureContext({ cert: pair.cert, key: pair.key })).not.toThrow();
  });

  it('covers localhost and the loopback addresses by default, and dates past 2049', () => {
    const cert = new X509Certificate(createSelfSignedCertificate({ now: new Date('2049-12-31T00:00:00Z') }).cert);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(new Date(cert.validTo).getUTCFullYear()).toBe(2050);
  });
});
