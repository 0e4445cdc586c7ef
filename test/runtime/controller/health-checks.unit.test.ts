import { describe, expect, it } from 'vitest';
import { answerHealthChecks, type HealthCheck } from '../../../src/runtime/manager/health-checks.js';

const checks = new Map<string, HealthCheck>([
  ['ping', () => true],
  [
    'db',
    () => {
      throw new Error('connection refused');
    },
  ],
  ['flag', () => false],
]);
const ask = (path: string) => answerHealthChecks(checks, '/healthz', new URL(path, 'http://localhost'));

describe('health check answers', () => {
  it('lists every check when one fails, and passes with the failing ones excluded', async () => {
    expect(await ask('/healthz')).toEqual({
      status: 500,
      body: '[+]ping ok\n[-]db failed: connection refused\n[-]flag failed: check returned false\ncheck failed\n',
    });
    expect(await ask('/healthz?exclude=db&exclude=flag')).toEqual({ status: 200, body: 'ok' });
    expect(await ask('/healthz?exclude=db&exclude=flag&verbose')).toEqual({
      status: 200,
      body: '[+]ping ok\n[+]db excluded: ok\n[+]flag excluded: ok\ncheck passed\n',
    });
  });

  it('names exclusions that match no check', async () => {
    const answer = await ask('/healthz?exclude=db&exclude=flag&exclude=typo&verbose');
    expect(answer.body).toContain('warn: some health checks cannot be excluded: no matches for "typo"');
    expect(answer.status).toBe(200);
  });

  it('runs a single check by name, and 404s for an unknown one', async () => {
    expect(await ask('/healthz/ping')).toEqual({ status: 200, body: 'ok' });
    expect(await ask('/healthz/db')).toEqual({ status: 500, body: 'internal server error: connection refused\n' });
    expect(await ask('/healthz/nope')).toEqual({ status: 404, body: 'no check named "nope"\n' });
  });
});
