/**
 * The public module of src/markers/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { argumentsUsage, guessValue, parseArgument, parseNamedArguments, splitTopLevel } from './arguments.js';
export type { ArgumentSpecs, ArgumentType } from './arguments.js';
export {
  collectCommentMarkers,
  commentMarkersInText,
  declarationMarkers,
  groupLeadingComments,
  isTypeScriptSource,
  listSourceFiles,
  unescapeCommentClose,
} from './collect.js';
export type { CommentMarker } from './collect.js';
export {
  MarkerPlacementError,
  MarkerSyntaxError,
  SchemaError,
  SchemaErrors,
  UnknownMarkerError,
  formatLocation,
  parseEach,
} from './errors.js';
export type { SourceLocation } from './errors.js';
export { isMarkerLine, markerRegistry, markerUsage } from './registry.js';
export {
  decideStorageVersion,
  isMarker,
  STORAGE_VERSION_MARKER,
  storageVersionMarks,
  storageVersionOf,
} from './storage-version.js';
export type { StorageVersionDecision, StorageVersionMark } from './storage-version.js';
export type { Marker, MarkerDefinition, MarkerTarget, RegisteredMarker } from './registry.js';
