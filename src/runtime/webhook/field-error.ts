/**
 * Field errors as k8s.io/apimachinery's `field.Error`: a validator throws a {@link ValidationError}
 * made of them, and the review is denied the way the apiserver refuses an invalid object itself
 * (code 422, reason Invalid, one `status.details.causes` entry per error), so kubectl prints it the same.
 */

/** The cause types of apimachinery's field errors (`metav1.CauseType`), with the words their messages start with. */
const TYPE_WORDS = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
} as const;

/** The `type` of a {@link FieldError}, as `status.details.causes[].type` carries it. */
export type FieldErrorType = keyof typeof TYPE_WORDS;

/** Types whose message never shows the value (apimachinery omits it for these). */
const VALUE_HIDDEN = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

/** Marks "no value to show" (a Required error has none). */
const NO_VALUE: unique symbol = Symbol('no value');

/** One field's problem, as k8s.io/apimachinery's field.Error. Make one with the static factories. */
export class FieldError {
  private constructor(
    /** The cause type, e.g. `FieldValueInvalid`. */
    readonly type: FieldErrorType,
    /** The field's path, e.g. `spec.replicas` or `spec.ports[0].name`. */
    readonly field: string,
    private readonly badValue: unknown,
    /** What is wrong, in words; '' when the type says it all. */
    readonly detail: string,
  ) {}

  /** The value was wrong: `<field>: Invalid value: <json>: <detail>`. */
  static invalid(field: string, value: unknown, detail: string): FieldError {
    return new FieldError('FieldValueInvalid', field, value, detail);
  }

  /** A required field is missing: `<field>: Required value[: <detail>]`. */
  static required(field: string, detail = ''): FieldError {
    return new FieldError('FieldValueRequired', field, NO_VALUE, detail);
  }

  /** The field may not be set (or changed) here: `<field>: Forbidden: <detail>`. */
  static forbidden(field: string, detail: string): FieldError {
    return new FieldError('FieldValueForbidden', field, NO_VALUE, detail);
  }

  /** The value is not one of `supported`: `<field>: Unsupported value: <json>: supported values: "a", "b"`. */
  static notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
    const detail =
      supported.length > 0 ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '';
    return new FieldError('FieldValueNotSupported', field, value, detail);
  }

  /** The value appears twice in a list or map that must be unique: `<field>: Duplicate value: <json>`. */
  static duplicate(field: string, value: unknown): FieldError {
    return new FieldError('FieldValueDuplicate', field, value, '');
  }

  /** The value is longer than `max` bytes: `<field>: Too long: may not be more than <max> bytes`. */
  static tooLong(field: string, value: unknown, max: number): FieldError {
    const detail = max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
    return new FieldError('FieldValueTooLong', field, value, detail);
  }

  /** The value this error is about, when it has one. */
  get value(): unknown {
    return this.badValue === NO_VALUE ? undefined : this.badValue;
  }

  /** The message without the field (a cause's `message`): `Invalid value: 0: must be at least 1`. */
  get message(): string {
    let body: string = TYPE_WORDS[this.type];
    if (!VALUE_HIDDEN.has(this.type) && this.badValue !== NO_VALUE) body += `: ${showValue(this.badValue)}`;
    return this.detail ? `${body}: ${this.detail}` : body;
  }

  /** The whole line: `<field>: <message>`. */
  toString(): string {
    return this.field ? `${this.field}: ${this.message}` : this.message;
  }
}

/** A value as the message shows it: JSON (strings quoted); what JSON cannot write, as text. */
function showValue(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Thrown by a validator (or a defaulter): the review is denied with code 422, reason Invalid, the
 * message `<Kind>.<group> "<name>" is invalid: <field>: <problem>, ...` (apierrors.NewInvalid's
 * wording, kind, group and name taken from the request) and one `status.details.causes` entry per error.
 */
export class ValidationError extends Error {
  /** The field errors, at least one. */
  readonly errors: readonly FieldError[];

  constructor(errors: FieldError | readonly FieldError[]) {
    const list = errors instanceof FieldError ? [errors] : [...errors];
    if (list.length === 0)
      throw new TypeError('ValidationError needs at least one FieldError; return normally when the object is valid');
    super(aggregateMessage(list));
    this.name = 'ValidationError';
    this.errors = list;
  }
}

/**
 * The errors as apimachinery aggregates them: one error alone, several in `[a, b]`, the same line
 * written once.
 */
export function aggregateMessage(errors: readonly FieldError[]): string {
  const lines = [...new Set(errors.map((e) => e.toString()))];
  return lines.length === 1 ? lines[0]! : `[${lines.join(', ')}]`;
}

/** apierrors.NewInvalid's message: `Kind.group "name" is invalid: <errors>` (no `.group` for the core group). */
export function invalidMessage(
  kind: { group: string; kind: string },
  name: string,
  errors: readonly FieldError[],
): string {
  const qualified = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  return `${qualified} ${JSON.stringify(name)} is invalid: ${aggregateMessage(errors)}`;
}
