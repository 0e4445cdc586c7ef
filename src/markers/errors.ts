/**
 * Where a marker (or anything else in the user's sources) was written, and the errors the
 * marker parser and the vocabularies raise: unknown, malformed and misplaced markers, and
 * several problems reported together. The schema, rbac and webhook vocabularies throw these;
 * schema/errors.ts re-exports them beside its own.
 */
import { KopError } from '../base/index.js';

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
/** A known marker placed where it has no meaning (on a type instead of a field, on a number instead of a string, ...). */
export class MarkerPlacementError extends SchemaError {}

/** Several problems in the user's sources, reported together (the first 20, then a count of the rest). */
export class SchemaErrors extends KopError {
  readonly errors: readonly KopError[];
  constructor(errors: readonly KopError[], listed = 20, where = 'the API types') {
    errors = errors.flatMap((e) => (e instanceof SchemaErrors ? e.errors : [e]));
    const shown = errors.slice(0, listed).map((e) => `  ${e.message}`);
    if (errors.length > listed) shown.push(`  ... and ${errors.length - listed} more`);
    super(
      `${errors.length} problems in ${where}:\n${shown.join('\n')}`,
      'fix each place listed; nothing was generated',
    );
    this.errors = errors;
  }
}

/**
 * Runs `parse` on each item and returns the results; a SchemaError of any item does not stop
 * the others, and all of them are thrown together at the end (one alone as itself), so a run
 * names every bad marker at once.
 */
export function parseEach<T, R>(items: readonly T[], parse: (item: T) => R, where: string): R[] {
  const results: R[] = [];
  const errors: SchemaError[] = [];
  for (const item of items) {
    try {
      results.push(parse(item));
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new SchemaErrors(errors, 20, where);
  return results;
}
