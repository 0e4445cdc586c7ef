import { KopError } from '../base/index.js';

// Locations and the marker errors live with the marker parser (markers/), which every
// vocabulary shares; they are re-exported here beside the schema's own errors.
import { formatLocation, SchemaError, type SourceLocation } from '../markers/index.js';
export {
  formatLocation,
  MarkerPlacementError,
  MarkerSyntaxError,
  parseEach,
  SchemaError,
  SchemaErrors,
  UnknownMarkerError,
  type SourceLocation,
} from '../markers/index.js';

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
/** A root kind without a `spec` property. */
export class KindWithoutSpecError extends SchemaError {}
/** Several versions of a kind and not exactly one of them marked as the storage version. */
export class StorageVersionError extends SchemaError {}
/** An API package (directory) without a group, with conflicting groups, or not named like a version. */
export class ApiPackageError extends SchemaError {}

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
