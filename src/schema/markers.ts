/**
 * The CRD vocabulary: controller-gen's CRD markers (`+name`, `+name=value`,
 * `+name:key=value,key2=value2`) in API types, registered into the shared marker registry
 * (markers/registry.ts), which parses them the way controller-gen does so Go API types port
 * to TypeScript by changing syntax only. Every marker keeps its file and line, for errors.
 */
import {
  markerRegistry,
  type Marker,
  type MarkerDefinition,
  type MarkerTarget,
  type RegisteredMarker,
} from '../markers/registry.js';
import type { SourceLocation } from '../markers/errors.js';

export { isMarkerLine, type Marker, type MarkerDefinition, type MarkerTarget } from '../markers/registry.js';
export {
  argumentsUsage,
  guessValue,
  parseArgument,
  parseNamedArguments,
  splitTopLevel,
  type ArgumentSpecs,
  type ArgumentType,
} from '../markers/arguments.js';

const NUMBER_MARKERS = ['Minimum', 'Maximum', 'MultipleOf'] as const;
const INT_MARKERS = ['MinLength', 'MaxLength', 'MinItems', 'MaxItems', 'MinProperties', 'MaxProperties'] as const;
const BOOL_MARKERS = [
  'ExclusiveMinimum',
  'ExclusiveMaximum',
  'UniqueItems',
  'XPreserveUnknownFields',
  'XEmbeddedResource',
  'XIntOrString',
] as const;

const XVALIDATION_ARGS = {
  rule: { type: 'string' },
  message: { type: 'string', optional: true },
  messageExpression: { type: 'string', optional: true },
  reason: { type: 'string', optional: true },
  fieldPath: { type: 'string', optional: true },
  optionalOldSelf: { type: 'bool', optional: true },
} as const;

function validationMarkers(prefix: string): MarkerDefinition[] {
  const both: MarkerTarget[] = ['type', 'field'];
  return [
    ...NUMBER_MARKERS.map((n) => ({ name: `${prefix}${n}`, targets: both, value: 'number' as const })),
    ...INT_MARKERS.map((n) => ({ name: `${prefix}${n}`, targets: both, value: 'int' as const })),
    ...BOOL_MARKERS.map((n) => ({ name: `${prefix}${n}`, targets: both, value: 'bool' as const })),
    { name: `${prefix}Pattern`, targets: both, value: 'string' },
    { name: `${prefix}Format`, targets: both, value: 'string' },
    { name: `${prefix}Type`, targets: both, value: 'string' },
    { name: `${prefix}Enum`, targets: both, value: 'anyList' },
    { name: `${prefix}XValidation`, targets: both, args: XVALIDATION_ARGS, repeatable: true },
  ];
}

/** The whole vocabulary: controller-gen's CRD markers plus the few kop reads for kinds and packages. */
export const MARKER_DEFINITIONS: readonly MarkerDefinition[] = [
  // package level
  { name: 'groupName', targets: ['package'], value: 'string' },
  { name: 'versionName', targets: ['package'], value: 'string' },
  { name: 'kubebuilder:skip', targets: ['package'] },
  { name: 'kubebuilder:object:generate', targets: ['package', 'type'], value: 'bool', ignored: true },
  { name: 'kubebuilder:validation:Optional', targets: ['package', 'field'] },
  { name: 'kubebuilder:validation:Required', targets: ['package', 'field'] },
  // field presence
  { name: 'optional', targets: ['field'] },
  { name: 'required', targets: ['field'] },
  { name: 'k8s:optional', targets: ['field'] },
  { name: 'k8s:required', targets: ['field'] },
  { name: 'nullable', targets: ['field'] },
  // validation
  ...validationMarkers('kubebuilder:validation:'),
  ...validationMarkers('kubebuilder:validation:items:'),
  { name: 'kubebuilder:validation:ExactlyOneOf', targets: ['type'], value: 'stringList', repeatable: true },
  { name: 'kubebuilder:validation:AtMostOneOf', targets: ['type'], value: 'stringList', repeatable: true },
  { name: 'kubebuilder:validation:AtLeastOneOf', targets: ['type'], value: 'stringList', repeatable: true },
  { name: 'kubebuilder:validation:Schemaless', targets: ['field'] },
  { name: 'kubebuilder:validation:EmbeddedResource', targets: ['field'] },
  { name: 'kubebuilder:pruning:PreserveUnknownFields', targets: ['type', 'field'] },
  { name: 'k8s:immutable', targets: ['field'] },
  // kop's own: a schema given verbatim, for what no marker expresses (kop import crd --raw-schema)
  { name: 'kop:schema', targets: ['type', 'field'], value: 'json' },
  { name: 'k8s:enum', targets: ['type'] },
  // defaults, docs
  { name: 'kubebuilder:default', targets: ['field'], value: 'any' },
  { name: 'default', targets: ['field'], value: 'json' },
  { name: 'kubebuilder:example', targets: ['field'], value: 'any' },
  { name: 'kubebuilder:title', targets: ['type', 'field'], value: 'string' },
  {
    name: 'kubebuilder:externalDocs',
    targets: ['type', 'field'],
    args: { url: { type: 'string' }, description: { type: 'string', optional: true } },
  },
  // topology
  { name: 'listType', targets: ['type', 'field'], value: 'string' },
  { name: 'listMapKey', targets: ['type', 'field'], value: 'string', repeatable: true },
  { name: 'mapType', targets: ['type', 'field'], value: 'string' },
  { name: 'structType', targets: ['type', 'field'], value: 'string' },
  // the kind
  { name: 'kubebuilder:object:root', targets: ['type'], value: 'bool' },
  {
    name: 'kubebuilder:resource',
    targets: ['type'],
    args: {
      path: { type: 'string', optional: true },
      singular: { type: 'string', optional: true },
      shortName: { type: 'stringList', optional: true },
      categories: { type: 'stringList', optional: true },
      scope: { type: 'string', optional: true },
    },
  },
  { name: 'kubebuilder:subresource:status', targets: ['type'] },
  {
    name: 'kubebuilder:subresource:scale',
    targets: ['type'],
    args: {
      specpath: { type: 'string' },
      statuspath: { type: 'string' },
      selectorpath: { type: 'string', optional: true },
    },
  },
  {
    name: 'kubebuilder:printcolumn',
    targets: ['type'],
    repeatable: true,
    args: {
      name: { type: 'string' },
      type: { type: 'string' },
      JSONPath: { type: 'string' },
      description: { type: 'string', optional: true },
      format: { type: 'string', optional: true },
      priority: { type: 'int', optional: true },
    },
  },
  { name: 'kubebuilder:storageversion', targets: ['type'] },
  { name: 'kubebuilder:deprecatedversion', targets: ['type'], args: { warning: { type: 'string', optional: true } } },
  { name: 'kubebuilder:unservedversion', targets: ['type'] },
  { name: 'kubebuilder:skipversion', targets: ['type'] },
  { name: 'kubebuilder:selectablefield', targets: ['type'], repeatable: true, args: { JSONPath: { type: 'string' } } },
  {
    name: 'kubebuilder:metadata',
    targets: ['type'],
    args: { annotations: { type: 'stringList', optional: true }, labels: { type: 'stringList', optional: true } },
  },
];

markerRegistry.register('crd', MARKER_DEFINITIONS);

/** The definition of a CRD marker name, if kop knows it. */
export function markerDefinition(name: string): RegisteredMarker | undefined {
  return markerRegistry.definition(name, 'crd');
}

/**
 * Parses one CRD marker line (the comment text, starting with `+`) with the shared marker
 * registry: the longest known name the text starts with wins, as in controller-gen.
 */
export function parseMarker(text: string, location: SourceLocation): Marker {
  return markerRegistry.parse(text, location, 'crd');
}

/** All markers named `name` in a list. */
export function markersNamed(markers: readonly Marker[], name: string): Marker[] {
  return markers.filter((m) => m.name === name);
}

/** The first marker named `name`, if any. */
export function findMarker(markers: readonly Marker[], name: string): Marker | undefined {
  return markers.find((m) => m.name === name);
}

/** The CRD marker name closest to a misspelt one, when close enough to be the one meant (see MarkerRegistry.nearest). */
export function nearestMarkerName(misspelt: string): string | undefined {
  return markerRegistry.nearest(misspelt, 'crd')?.name;
}
