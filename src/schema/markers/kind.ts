/**
 * The markers of a kind and of its package: which declarations are kinds and what they are
 * called (read where kinds and packages are assembled, kinds.ts and model.ts), the versions'
 * flags (served, deprecated, skipped), and what each version of the CRD carries: subresources,
 * printer columns, selectable fields, and the CRD's own labels and annotations.
 */
import type { JSONValue } from '../../base/index.js';
import { MarkerPlacementError } from '../errors.js';
import type { CrdVersion } from '../crd-types.js';
import type { Marker } from '../../markers/index.js';
import type { CrdMarkerDefinition } from './definition.js';
import { PRESENCE } from './fields.js';

export const PACKAGE_MARKERS: readonly CrdMarkerDefinition[] = [
  // Read by model.ts, which groups API files into packages.
  { name: 'groupName', targets: ['package'], value: 'string' },
  { name: 'versionName', targets: ['package'], value: 'string' },
  { name: 'kubebuilder:skip', targets: ['package'] },
  { name: 'kubebuilder:object:generate', targets: ['package', 'type'], value: 'bool', ignored: true },
  // On a package: every field of it defaults to optional (model.ts); on a field, that field's presence.
  { name: 'kubebuilder:validation:Optional', targets: ['package', 'field'], presence: PRESENCE.validationOptional },
  { name: 'kubebuilder:validation:Required', targets: ['package', 'field'], presence: PRESENCE.validationRequired },
];

const PRINTER_COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];
const PRINTER_COLUMN_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password'];

export const KIND_MARKERS: readonly CrdMarkerDefinition[] = [
  // Read by kinds.ts, which finds the kinds and their names, scope and storage version.
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
  {
    name: 'kubebuilder:subresource:status',
    targets: ['type'],
    applyToVersion: ({ version }) => void ((version.subresources ??= {}).status = {}),
  },
  {
    name: 'kubebuilder:subresource:scale',
    targets: ['type'],
    args: {
      specpath: { type: 'string' },
      statuspath: { type: 'string' },
      selectorpath: { type: 'string', optional: true },
    },
    applyToVersion: ({ marker, version, requirePath }) => {
      const specReplicasPath = String(marker.args.specpath);
      const statusReplicasPath = String(marker.args.statuspath);
      requirePath(specReplicasPath, ['integer']);
      requirePath(statusReplicasPath, ['integer']);
      const scale: NonNullable<NonNullable<CrdVersion['subresources']>['scale']> = {
        specReplicasPath,
        statusReplicasPath,
      };
      if (marker.args.selectorpath !== undefined) {
        const labelSelectorPath = String(marker.args.selectorpath);
        requirePath(labelSelectorPath, ['string']);
        scale.labelSelectorPath = labelSelectorPath;
      }
      (version.subresources ??= {}).scale = scale;
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
    applyToVersion: ({ marker: m, subject, version }) => {
      const column: NonNullable<CrdVersion['additionalPrinterColumns']>[number] = {
        name: String(m.args.name),
        type: String(m.args.type),
        jsonPath: String(m.args.JSONPath),
      };
      const refuse = (problem: string, fix: string): never => {
        throw new MarkerPlacementError(m.location, `${subject} (+kubebuilder:printcolumn)`, problem, fix);
      };
      if (!PRINTER_COLUMN_TYPES.includes(column.type))
        refuse(`type "${column.type}" is not a printer column type`, `use one of ${PRINTER_COLUMN_TYPES.join(', ')}`);
      // The apiserver refuses these two; say so with the marker's line instead of at kubectl apply.
      if (!column.jsonPath.startsWith('.')) {
        refuse(
          `JSONPath "${column.jsonPath}" does not start with "."`,
          `write a simple JSON path such as JSONPath=.${column.jsonPath.replace(/^\$?\.?/, '')}`,
        );
      }
      if (m.args.format !== undefined && !PRINTER_COLUMN_FORMATS.includes(String(m.args.format))) {
        refuse(
          `format "${String(m.args.format)}" is not a printer column format`,
          `use one of ${PRINTER_COLUMN_FORMATS.join(', ')}, or leave format out`,
        );
      }
      if (m.args.description !== undefined) column.description = String(m.args.description);
      if (m.args.format !== undefined) column.format = String(m.args.format);
      if (m.args.priority !== undefined) column.priority = Number(m.args.priority);
      (version.additionalPrinterColumns ??= []).push(column);
    },
  },
  // Read by kinds.ts: exactly one version of a kind is stored. Said twice on one version, it means
  // the same (controller-gen reads it as set).
  { name: 'kubebuilder:storageversion', targets: ['type'], idempotent: true },
  {
    name: 'kubebuilder:deprecatedversion',
    targets: ['type'],
    args: { warning: { type: 'string', optional: true } },
    applyToKindVersion: (version, marker) => {
      version.deprecated = true;
      if (typeof marker.args.warning === 'string') version.deprecationWarning = marker.args.warning;
    },
  },
  {
    name: 'kubebuilder:unservedversion',
    targets: ['type'],
    applyToKindVersion: (version) => void (version.served = false),
  },
  {
    name: 'kubebuilder:skipversion',
    targets: ['type'],
    applyToKindVersion: (version) => void (version.skipped = true),
  },
  {
    name: 'kubebuilder:selectablefield',
    targets: ['type'],
    repeatable: true,
    args: { JSONPath: { type: 'string' } },
    applyToVersion: ({ marker, version, requirePath }) => {
      const jsonPath = String(marker.args.JSONPath);
      requirePath(jsonPath, ['string', 'integer', 'boolean']);
      (version.selectableFields ??= []).push({ jsonPath });
    },
  },
  {
    name: 'kubebuilder:metadata',
    targets: ['type'],
    args: { annotations: { type: 'stringList', optional: true }, labels: { type: 'stringList', optional: true } },
    applyToCrd: (crd, marker) => {
      const annotations = keyValues(marker, 'annotations');
      const labels = keyValues(marker, 'labels');
      if (annotations) crd.metadata.annotations = { ...crd.metadata.annotations, ...annotations };
      if (labels) crd.metadata.labels = { ...crd.metadata.labels, ...labels };
    },
  },
];

/** `key=value` items of a list argument as a record; undefined when the list is absent or empty. */
function keyValues(marker: Marker, key: string): Record<string, string> | undefined {
  const list = marker.args[key];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const item of list as JSONValue[]) {
    const text = String(item);
    const eq = text.indexOf('=');
    if (eq < 0) {
      throw new MarkerPlacementError(
        marker.location,
        `+${marker.name}`,
        `"${text}" is not key=value`,
        `write ${key}="key=value"`,
      );
    }
    out[text.slice(0, eq)] = text.slice(eq + 1);
  }
  return out;
}
