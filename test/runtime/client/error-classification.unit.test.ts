import { describe, expect, it } from 'vitest';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isInvalid,
  isNotFound,
  isTimeout,
  type Status,
} from '../../../src/runtime/index.js';

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
