/**
 * The markers of a field's presence (required or optional) and of the values, docs and
 * topology of any type or field: defaults, examples, titles, external docs, nullable, and the
 * list/map/struct types server-side apply merges by.
 */
import { isEmptyObject } from '../json-schema.js';
import type { CrdMarkerDefinition, SchemaApplication } from './definition.js';

/**
 * Presence, by controller-gen's precedence: kubebuilder:validation:Optional, then
 * kubebuilder:validation:Required, then optional / k8s:optional, then required / k8s:required;
 * without any, `?` and the package default decide (to-openapi.ts, isRequired).
 */
export const PRESENCE = {
  validationOptional: { required: false, precedence: 0 },
  validationRequired: { required: true, precedence: 1 },
  optional: { required: false, precedence: 2 },
  required: { required: true, precedence: 3 },
} as const;

export const PRESENCE_MARKERS: readonly CrdMarkerDefinition[] = [
  { name: 'optional', targets: ['field'], presence: PRESENCE.optional },
  { name: 'required', targets: ['field'], presence: PRESENCE.required },
  { name: 'k8s:optional', targets: ['field'], presence: PRESENCE.optional },
  { name: 'k8s:required', targets: ['field'], presence: PRESENCE.required },
  { name: 'nullable', targets: ['field'], applyToSchema: (a) => (a.schema.nullable = true) },
];

/** `+kubebuilder:default` (controller-gen's guessed syntax) and `+default` (JSON); `{}` on an array is `[]`. */
function setDefault(a: SchemaApplication): void {
  a.schema.default = isEmptyObject(a.marker.value) && a.fit.type === 'array' ? [] : a.marker.value;
}

export const DOC_MARKERS: readonly CrdMarkerDefinition[] = [
  { name: 'kubebuilder:default', targets: ['field'], value: 'any', applyToSchema: setDefault },
  { name: 'default', targets: ['field'], value: 'json', applyToSchema: setDefault },
  {
    name: 'kubebuilder:example',
    targets: ['field'],
    value: 'any',
    applyToSchema: (a) => (a.schema.example = a.marker.value),
  },
  {
    name: 'kubebuilder:title',
    targets: ['type', 'field'],
    value: 'string',
    applyToSchema: (a) => (a.schema.title = String(a.marker.value)),
  },
  {
    name: 'kubebuilder:externalDocs',
    targets: ['type', 'field'],
    args: { url: { type: 'string' }, description: { type: 'string', optional: true } },
    applyToSchema: (a) => {
      const { url, description } = a.marker.args;
      a.schema.externalDocs = {
        ...(description !== undefined ? { description: String(description) } : {}),
        url: String(url),
      };
    },
  },
];

export const TOPOLOGY_MARKERS: readonly CrdMarkerDefinition[] = [
  {
    name: 'listType',
    targets: ['type', 'field'],
    value: 'string',
    applyToSchema: (a) => {
      if (a.fit.type !== 'array') a.misplaced('arrays');
      if (!['atomic', 'set', 'map'].includes(String(a.marker.value))) a.badValue('atomic, set or map');
      a.schema['x-kubernetes-list-type'] = String(a.marker.value);
    },
  },
  {
    name: 'listMapKey',
    targets: ['type', 'field'],
    value: 'string',
    repeatable: true,
    applyToSchema: (a) => {
      if (a.fit.type !== 'array') a.misplaced('arrays');
      a.schema['x-kubernetes-list-map-keys'] = [
        ...(a.schema['x-kubernetes-list-map-keys'] ?? []),
        String(a.marker.value),
      ];
    },
  },
  { name: 'mapType', targets: ['type', 'field'], value: 'string', applyToSchema: mergeGranularity('maps') },
  { name: 'structType', targets: ['type', 'field'], value: 'string', applyToSchema: mergeGranularity('objects') },
];

/** `mapType` / `structType`: atomic or granular, on objects. */
function mergeGranularity(fits: string): (a: SchemaApplication) => void {
  return (a) => {
    if (a.fit.type !== 'object') a.misplaced(fits);
    if (!['atomic', 'granular'].includes(String(a.marker.value))) a.badValue('atomic or granular');
    a.schema['x-kubernetes-map-type'] = String(a.marker.value);
  };
}
