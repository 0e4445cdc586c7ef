/**
 * What a CRD marker is: its definition for the shared registry (name, where it may stand, its
 * arguments) together with its effect, as controller-tools' CRD markers apply themselves to a
 * schema (`ApplyToSchema`) or to a CRD version. The schema stages (to-openapi.ts, kinds.ts,
 * crd.ts) look a marker's definition up and run its effect; none of them knows what a marker
 * does by its name.
 */
import type { ApiKindVersion } from '../model-types.js';
import type { JSONSchemaProps, ValidationRule } from '../json-schema.js';
import type { CrdVersion, CustomResourceDefinition } from '../crd-types.js';
import type { Marker, MarkerDefinition, SourceLocation } from '../../markers/index.js';

/** Where a marker stands, for messages: the type or `Type: field "name"`, and its file:line. */
export interface SchemaSite {
  subject: string;
  location: SourceLocation;
}

/**
 * The groups of CEL rules markers generate, in the order controller-gen writes them: the
 * XValidation rules as written, then the immutability rule, then AtMostOneOf, ExactlyOneOf
 * and AtLeastOneOf.
 */
export const RULE_ORDER = ['XValidation', 'immutable', 'AtMostOneOf', 'ExactlyOneOf', 'AtLeastOneOf'] as const;
export type RuleGroup = (typeof RULE_ORDER)[number];

/** What a marker's schema effect works on: one marker on one type or field. */
export interface SchemaApplication {
  readonly marker: Marker;
  readonly site: SchemaSite;
  /** The schema the marker writes into: the type's own, or the field's layer over its named type. */
  readonly schema: JSONSchemaProps;
  /** The schema of the type the marker stands on, which decides whether the marker fits. */
  readonly fit: JSONSchemaProps;
  /** Adds a generated CEL rule, placed by its group in controller-gen's order. */
  readonly addRule: (group: RuleGroup, rule: ValidationRule) => void;
  /** The same marker applied to the elements of the array it stands on (`items:` markers); refuses non-arrays. */
  readonly items: () => SchemaApplication;
  /** Refuses the marker here: it applies only to `fits` (e.g. "numbers"). */
  readonly misplaced: (fits: string) => never;
  /** Refuses the marker's value: `allowed` says what may be written. */
  readonly badValue: (allowed: string) => never;
}

/** What a marker's effect on a CRD version works on: the version being built and its finished schema. */
export interface VersionApplication {
  readonly marker: Marker;
  /** The kind's name, for messages. */
  readonly subject: string;
  readonly version: CrdVersion;
  readonly schema: JSONSchemaProps;
  /** Refuses the marker unless `jsonPath` (`.spec.replicas`) is a field of one of `types`. */
  readonly requirePath: (jsonPath: string, types: readonly string[]) => void;
}

/** A field's presence as a marker states it; the lowest `precedence` among a field's markers wins. */
export interface Presence {
  required: boolean;
  precedence: number;
}

/** A CRD marker: its definition and what it does. A marker with no effect here is read by the stage its doc names. */
export interface CrdMarkerDefinition extends MarkerDefinition {
  /** Changes the schema of the type or field the marker stands on. */
  applyToSchema?: (application: SchemaApplication) => void;
  /** Says whether the field is required. */
  presence?: Presence;
  /** A rule the field's marker adds to the object holding the field when the field is optional. */
  ownerRule?: (field: string) => ValidationRule;
  /** Changes the version of the kind the marker stands on (served, deprecated, skipped). */
  applyToKindVersion?: (version: ApiKindVersion, marker: Marker) => void;
  /** Changes the CRD version built from the kind's declaration (subresources, columns, fields). */
  applyToVersion?: (application: VersionApplication) => void;
  /** Changes the CRD itself (its metadata); the first such marker among the kind's versions applies. */
  applyToCrd?: (crd: CustomResourceDefinition, marker: Marker) => void;
}
