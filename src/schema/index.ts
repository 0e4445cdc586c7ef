/**
 * The public module of src/schema/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { normaliseDoc } from './comments.js';
export { coreTypeNames, coreTypeSchema } from './core-types.js';
export {
  ANNOTATIONS_SIZE_LIMIT,
  LARGE_CRD_INSTALL_HINT,
  formatKiB,
  largeCrdWarning,
  tooLargeForClientSideApply,
} from './crd-size.js';
export { GENERATOR_ANNOTATION, buildCrd, buildCrds, formatCrd } from './crd.js';
export type { CrdVersion, CustomResourceDefinition, GeneratedCrd } from './crd.js';
export type { JSONSchemaProps, ValidationRule } from './json-schema.js';
export { allFields } from './kinds.js';
export { findMarker, isMarkerLine, markersNamed } from './markers.js';
export type { Marker } from './markers.js';
export { WELL_KNOWN_MODULE, loadApiModel } from './model.js';
export type { ApiKind, ApiKindVersion, ApiModel, FieldModel, TypeDeclaration, TypeRef } from './model.js';
export { schemaDifference } from './schema-difference.js';
export { checkStructural } from './structural.js';
export { OpenApiConverter, TYPE_META_PROPERTIES } from './to-openapi.js';
export { firstSchemaViolation } from './validate-object.js';
