/**
 * Where a marker (or anything else in the user's sources) was written, and the errors the
 * marker parser raises. The schema, rbac and webhook vocabularies throw these too;
 * schema/errors.ts re-exports them beside its own.
 */
import { KopError } from '../base/errors.js';

/** Where something was written: a project-relative file and a 1-based line. */
export interface SourceLocation {
  file: string;
  line: number;
}

/** `file:line`, the form editors and terminals turn into links. */
export function formatLocation(location: SourceLocation): string {
  return `${location.file}:${location.line}`;
}

/**
 * A problem in the user's API types or markers. The message names the offending type, field
 * or marker, says what is wrong and what to write instead, and ends with `(file:line)`.
 */
export class SchemaError extends KopError {
  constructor(
    readonly location: SourceLocation,
    readonly subject: string,
    readonly problem: string,
    readonly fix?: string,
  ) {
    super(`${subject}: ${problem}${fix ? `; ${fix}` : ''} (${formatLocation(location)})`);
  }
}

/** A marker kop does not know. */
export class UnknownMarkerError extends SchemaError {}
/** A marker whose arguments do not parse. */
export class MarkerSyntaxError extends SchemaError {}
