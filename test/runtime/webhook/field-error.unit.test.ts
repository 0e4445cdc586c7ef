import { describe, expect, it } from 'vitest';
import { FieldError, ValidationError, invalidMessage } from '../../../src/runtime/webhook/field-error.js';

describe('FieldError', () => {
  // The lines apimachinery's field.Error.Error() writes for the same calls.
  const cases: {
    name: string;
    given: FieldError;
    want: { type: string; field: string; message: string; line: string };
  }[] = [
    {
      name: 'invalid number',
      given: FieldError.invalid('spec.replicas', 0, 'must be at least 1'),
      want: {
        type: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: 'Invalid value: 0: must be at least 1',
        line: 'spec.replicas: Invalid value: 0: must be at least 1',
      },
    },
    {
      name: 'invalid string is quoted',
      given: FieldError.invalid('spec.mode', 'fast', 'not allowed in production'),
      want: {
        type: 'FieldValueInvalid',
        field: 'spec.mode',
        message: 'Invalid value: "fast": not allowed in production',
        line: 'spec.mode: Invalid value: "fast": not allowed in production',
      },
    },
    {
      name: 'required without detail',
      given: FieldError.required('spec.image'),
      want: {
        type: 'FieldValueRequired',
        field: 'spec.image',
        message: 'Required value',
        line: 'spec.image: Required value',
      },
    },
    {
      name: 'required with detail',
      given: FieldError.required('spec.image', 'an image is needed to run'),
      want: {
        type: 'FieldValueRequired',
        field: 'spec.image',
        message: 'Required value: an image is needed to run',
        line: 'spec.image: Required value: an image is needed to run',
      },
    },
    {
      name: 'forbidden shows no value',
      given: FieldError.forbidden('spec.storage', 'may not change after creation'),
      want: {
        type: 'FieldValueForbidden',
        field: 'spec.storage',
        message: 'Forbidden: may not change after creation',
        line: 'spec.storage: Forbidden: may not change after creation',
      },
    },
    {
      name: 'not supported lists the quoted values',
      given: FieldError.notSupported('spec.policy', 'Sometimes', ['Always', 'Never']),
      want: {
        type: 'FieldValueNotSupported',
        field: 'spec.policy',
        message: 'Unsupported value: "Sometimes": supported values: "Always", "Never"',
        line: 'spec.policy: Unsupported value: "Sometimes": supported values: "Always", "Never"',
      },
    },
    {
      name: 'duplicate',
      given: FieldError.duplicate('spec.ports[1].name', 'http'),
      want: {
        type: 'FieldValueDuplicate',
        field: 'spec.ports[1].name',
        message: 'Duplicate value: "http"',
        line: 'spec.ports[1].name: Duplicate value: "http"',
      },
    },
    {
      name: 'too long shows the limit, not the value',
      given: FieldError.tooLong('metadata.name', 'x'.repeat(70), 63),
      want: {
        type: 'FieldValueTooLong',
        field: 'metadata.name',
        message: 'Too long: may not be more than 63 bytes',
        line: 'metadata.name: Too long: may not be more than 63 bytes',
      },
    },
    {
      name: 'too long, one byte',
      given: FieldError.tooLong('spec.flag', 'ab', 1),
      want: {
        type: 'FieldValueTooLong',
        field: 'spec.flag',
        message: 'Too long: may not be more than 1 byte',
        line: 'spec.flag: Too long: may not be more than 1 byte',
      },
    },
    {
      name: 'an object value is written as JSON',
      given: FieldError.invalid('spec.selector', { app: 'x' }, 'must not be empty'),
      want: {
        type: 'FieldValueInvalid',
        field: 'spec.selector',
        message: 'Invalid value: {"app":"x"}: must not be empty',
        line: 'spec.selector: Invalid value: {"app":"x"}: must not be empty',
      },
    },
  ];
  it.each(cases)('$name', ({ given, want }) => {
    expect({ type: given.type, field: given.field, message: given.message, line: given.toString() }).toEqual(want);
  });

  it('keeps the value it was given (none for required and forbidden)', () => {
    expect(FieldError.invalid('a', 5, 'x').value).toBe(5);
    expect(FieldError.required('a').value).toBeUndefined();
    expect(FieldError.forbidden('a', 'x').value).toBeUndefined();
  });

  it('writes a value JSON cannot hold as text instead of throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(FieldError.invalid('a', cyclic, 'x').message).toBe('Invalid value: [object Object]: x');
    expect(FieldError.invalid('a', 10n, 'x').message).toBe('Invalid value: 10: x');
  });
});

describe('ValidationError', () => {
  it('one error: its line is the message', () => {
    const error = new ValidationError(FieldError.invalid('spec.replicas', 0, 'must be at least 1'));
    expect(error.message).toBe('spec.replicas: Invalid value: 0: must be at least 1');
    expect(error.errors).toHaveLength(1);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ValidationError');
  });

  it('several errors: in brackets, joined with ", ", the same line once', () => {
    const error = new ValidationError([
      FieldError.required('spec.a'),
      FieldError.forbidden('spec.b', 'no'),
      FieldError.required('spec.a'),
    ]);
    expect(error.message).toBe('[spec.a: Required value, spec.b: Forbidden: no]');
    expect(error.errors).toHaveLength(3);
  });

  it('refuses an empty list (a valid object needs no error)', () => {
    expect(() => new ValidationError([])).toThrow(/at least one FieldError/);
  });
});

describe('invalidMessage (apierrors.NewInvalid)', () => {
  it.each([
    {
      given: { group: 'cache.example.com', kind: 'RedisCluster', name: 'r1' },
      want: 'RedisCluster.cache.example.com "r1" is invalid: spec.replicas: Invalid value: 0: must be at least 1',
    },
    {
      given: { group: '', kind: 'Pod', name: 'p' },
      want: 'Pod "p" is invalid: spec.replicas: Invalid value: 0: must be at least 1',
    },
    {
      given: { group: 'x.io', kind: 'A', name: '' },
      want: 'A.x.io "" is invalid: spec.replicas: Invalid value: 0: must be at least 1',
    },
  ])('$want', ({ given, want }) => {
    expect(invalidMessage(given, given.name, [FieldError.invalid('spec.replicas', 0, 'must be at least 1')])).toBe(
      want,
    );
  });
});
