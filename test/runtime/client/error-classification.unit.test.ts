import { describe, expect, it } from 'vitest';
import { ApiError, isAlreadyExists, isConflict, isInvalid, isNotFound } from '../../../src/runtime/index.js';
import { isForbidden } from '../../../src/runtime/client/index.js';
import { isTimeout, statusFromResponse } from '../../../src/runtime/client/errors/api-error.js';
import type { Status } from '../../../src/api/index.js';

function apiError(code: number, reason: string | undefined): ApiError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: 'denied' };
  return new ApiError(status, 'POST', '/api/v1/namespaces/x/configmaps');
}

// client-go's IsNotFound, IsForbidden, ... check the reason first and fall back on the HTTP code
// whenever the reason is not one the apiserver defines (admission webhooks may send their own,
// and the apiserver passes it through); a known reason with another meaning never matches.
describe('ApiError classification', () => {
  it.each([
    { given: [403, 'PolicyViolation'], want: isForbidden },
    { given: [404, 'NoSuchThing'], want: isNotFound },
    { given: [422, 'SchemaMismatch'], want: isInvalid },
    { given: [409, 'Busy'], want: isConflict },
    { given: [504, undefined], want: isTimeout },
  ] as const)('a $given.0 with the reason $given.1 is classified by its code', ({ given, want }) => {
    expect(want(apiError(given[0], given[1]))).toBe(true);
  });

  it('a known reason decides over the code', () => {
    expect(isConflict(apiError(409, 'AlreadyExists'))).toBe(false);
    expect(isAlreadyExists(apiError(409, 'AlreadyExists'))).toBe(true);
    expect(isForbidden(apiError(403, 'NotFound'))).toBe(false);
    expect(isNotFound(apiError(403, 'NotFound'))).toBe(true);
  });
});

describe('error bodies in messages', () => {
  it('keeps the start of a huge non-Status body, and of a huge Status message, not all of it', () => {
    const page = `<html>${'x'.repeat(2_000_000)}</html>`;
    const raw = statusFromResponse(502, page);
    expect(raw.message!.length).toBeLessThan(1100);
    expect(raw.message).toMatch(/^<html>x+… \(\d+ more characters\)$/);
    const status = statusFromResponse(
      422,
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: 'y'.repeat(100_000),
      }),
    );
    expect(status.message!.length).toBeLessThan(17_000);
    expect(status.reason).toBe('Invalid');
    expect(statusFromResponse(500, 'short').message).toBe('short');
  });
});
