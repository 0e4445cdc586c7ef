import { KopError } from '../base/errors.js';

// Locations and the marker errors live with the marker parser (markers/), which every
// vocabulary shares; they are re-exported here beside the schema's own errors.
import { formatLocation, SchemaError, type SourceLocation } from '../markers/errors.js';
export {
  formatLocation,
  MarkerSyntaxError,
  SchemaError,
  UnknownMarkerError,
  type SourceLocation,
} from '../markers/errors.js';

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

/** A union that is neither string literals (an enum) nor `T | undefined`. */
export class UnsupportedUnionError extends SchemaError {}
/** `any` or `unknown`, which give no schema. */
export class UntypedValueError extends SchemaError {}
/** A type that contains itself; structural schemas are finite trees. */
export class RecursiveTypeError extends SchemaError {}
/** A type name that is not declared, imported from a relative file, or known from kop/api. */
export class UnresolvedTypeError extends SchemaError {}
/** `number`, a float, which controller-gen refuses unless dangerous types are allowed. */
export class FloatTypeError extends SchemaError {}
/** A known marker placed where it has no meaning (on a type instead of a field, on a number instead of a string, ...). */
export class MarkerPlacementError extends SchemaError {}
/** A root kind without a `spec` property. */
export class KindWithoutSpecError extends SchemaError {}
/** Several versions of a kind and not exactly one of them marked as the storage version. */
export class StorageVersionError extends SchemaError {}
/** An API package (directory) without a group, with conflicting groups, or not named like a version. */
export class ApiPackageError extends SchemaError {}
/** Several problems in the API types, reported together (the first 20, then a count of the rest). */
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

/** API files that do not parse: every syntax error with file:line:column (the parser would recover and mislead the later stages). */
export class ApiSyntaxError extends KopError {
  constructor(
    readonly problems: readonly string[],
    listed = 20,
  ) {
    const shown = problems.slice(0, listed).map((p) => `  ${p}`);
    if (problems.length > listed) shown.push(`  ... and ${problems.length - listed} more`);
    super(
      `the API types do not parse (${problems.length} syntax error${problems.length === 1 ? '' : 's'}):\n${shown.join('\n')}`,
      'fix the syntax errors listed; nothing was generated',
    );
  }
}

/** The generated schema breaks a rule of structural schemas; several violations are listed together. */
export class StructuralSchemaError extends KopError {
  constructor(readonly violations: readonly { location: SourceLocation; path: string; message: string }[]) {
    super(
      `the generated schema is not structural:\n` +
        violations.map((v) => `  ${v.path}: ${v.message} (${formatLocation(v.location)})`).join('\n'),
      'fix the types or markers at the places listed',
    );
  }
}
