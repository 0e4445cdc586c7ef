/**
 * Stage 5: the CustomResourceDefinition envelope around each kind's schemas — names,
 * scope, versions (exactly one storage version; deprecated, unserved and skipped
 * versions), subresources, printer columns, selectable fields, CRD labels and
 * annotations — and its deterministic YAML.
 */
import { generatedYamlDocuments } from '../scaffold/yaml.js';
import { MarkerPlacementError, SchemaErrors, type SourceLocation } from './errors.js';
import { KopError } from '../base/errors.js';
import type { JSONSchemaProps, JSONValue } from './json-schema.js';
import { findMarker, markersNamed, type Marker } from './markers.js';
import type { ApiKind, ApiKindVersion, ApiModel } from './model.js';
import { assertStructural, topLevelMetadata, truncateDescriptions } from './structural.js';
import { OpenApiConverter, type OpenApiOptions } from './to-openapi.js';

export interface CrdOptions extends OpenApiOptions {
  /** Cap on every description, in bytes (controller-gen's `crd:maxDescLen`); 0 drops descriptions. */
  maxDescriptionLength?: number;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition, as much of it as kop writes. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: CrdVersion[];
  };
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: {
    name: string;
    type: string;
    jsonPath: string;
    description?: string;
    format?: string;
    priority?: number;
  }[];
  selectableFields?: { jsonPath: string }[];
}

/** One CRD ready to write. */
export interface GeneratedCrd {
  kind: ApiKind;
  /** `config/crd/bases/<group>_<plural>.yaml` relative path's file name. */
  fileName: string;
  crd: CustomResourceDefinition;
}

/** Builds the CRD of every kind in the model, sorted by file name. */
export function buildCrds(model: ApiModel, options: CrdOptions = {}): GeneratedCrd[] {
  const converter = new OpenApiConverter(model, options);
  // Every kind is tried, so one run reports the problems of all of them.
  const crds: GeneratedCrd[] = [];
  const errors: KopError[] = [...model.problems];
  for (const kind of model.kinds) {
    try {
      crds.push({ kind, fileName: `${kind.group}_${kind.plural}.yaml`, crd: buildCrd(kind, converter, options) });
    } catch (error) {
      if (!(error instanceof KopError)) throw error;
      errors.push(...(error instanceof SchemaErrors ? error.errors : [error]));
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new SchemaErrors(errors);
  return crds.sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
}

/** The CRD of one kind. */
export function buildCrd(
  kind: ApiKind,
  converter: OpenApiConverter,
  options: CrdOptions = {},
): CustomResourceDefinition {
  const versions = kind.versions.filter((v) => !v.skipped).map((v) => buildVersion(v, converter, options));
  versions.sort((a, b) => (a.name < b.name ? -1 : 1));
  const allMarkers = kind.versions.flatMap((v) => v.declaration.markers);
  const metadataMarker = findMarker(allMarkers, 'kubebuilder:metadata');
  const metadata: CustomResourceDefinition['metadata'] = { name: `${kind.plural}.${kind.group}` };
  const annotations = keyValues(metadataMarker, 'annotations');
  const labels = keyValues(metadataMarker, 'labels');
  if (annotations) metadata.annotations = annotations;
  if (labels) metadata.labels = labels;
  const names: CustomResourceDefinition['spec']['names'] = {
    kind: kind.kind,
    listKind: kind.listKind,
    plural: kind.plural,
    singular: kind.singular,
  };
  if (kind.shortNames.length > 0) names.shortNames = kind.shortNames;
  if (kind.categories.length > 0) names.categories = kind.categories;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata,
    spec: { group: kind.group, names, scope: kind.scope, versions },
  };
}

function buildVersion(version: ApiKindVersion, converter: OpenApiConverter, options: CrdOptions): CrdVersion {
  const declaration = version.declaration;
  const markers = declaration.markers;
  let schema = topLevelMetadata(converter.kindSchema(version));
  assertStructural(schema, converter.origins, declaration.location);
  if (options.maxDescriptionLength !== undefined) schema = truncateDescriptions(schema, options.maxDescriptionLength);
  const entry: CrdVersion = {
    name: version.version,
    served: version.served,
    storage: version.storage,
    schema: { openAPIV3Schema: schema },
  };
  if (version.deprecated) {
    entry.deprecated = true;
    if (version.deprecationWarning !== undefined) entry.deprecationWarning = version.deprecationWarning;
  }
  const subresources: NonNullable<CrdVersion['subresources']> = {};
  if (findMarker(markers, 'kubebuilder:subresource:status')) subresources.status = {};
  const scale = findMarker(markers, 'kubebuilder:subresource:scale');
  if (scale) {
    const specReplicasPath = String(scale.args.specpath);
    const statusReplicasPath = String(scale.args.statuspath);
    requirePath(schema, specReplicasPath, scale, declaration.name, ['integer']);
    requirePath(schema, statusReplicasPath, scale, declaration.name, ['integer']);
    subresources.scale = { specReplicasPath, statusReplicasPath };
    if (scale.args.selectorpath !== undefined) {
      const labelSelectorPath = String(scale.args.selectorpath);
      requirePath(schema, labelSelectorPath, scale, declaration.name, ['string']);
      subresources.scale.labelSelectorPath = labelSelectorPath;
    }
  }
  const columns = markersNamed(markers, 'kubebuilder:printcolumn').map((m) => {
    const column: NonNullable<CrdVersion['additionalPrinterColumns']>[number] = {
      name: String(m.args.name),
      type: String(m.args.type),
      jsonPath: String(m.args.JSONPath),
    };
    const types = ['integer', 'number', 'string', 'boolean', 'date'];
    if (!types.includes(column.type)) {
      throw new MarkerPlacementError(
        m.location,
        `${declaration.name} (+kubebuilder:printcolumn)`,
        `type "${column.type}" is not a printer column type`,
        `use one of ${types.join(', ')}`,
      );
    }
    // The apiserver refuses these two; say so with the marker's line instead of at kubectl apply.
    if (!column.jsonPath.startsWith('.')) {
      throw new MarkerPlacementError(
        m.location,
        `${declaration.name} (+kubebuilder:printcolumn)`,
        `JSONPath "${column.jsonPath}" does not start with "."`,
        `write a simple JSON path such as JSONPath=.${column.jsonPath.replace(/^\$?\.?/, '')}`,
      );
    }
    const formats = ['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password'];
    if (m.args.format !== undefined && !formats.includes(String(m.args.format))) {
      throw new MarkerPlacementError(
        m.location,
        `${declaration.name} (+kubebuilder:printcolumn)`,
        `format "${String(m.args.format)}" is not a printer column format`,
        `use one of ${formats.join(', ')}, or leave format out`,
      );
    }
    if (m.args.description !== undefined) column.description = String(m.args.description);
    if (m.args.format !== undefined) column.format = String(m.args.format);
    if (m.args.priority !== undefined) column.priority = Number(m.args.priority);
    return column;
  });
  if (columns.length > 0) entry.additionalPrinterColumns = columns;
  const selectable = markersNamed(markers, 'kubebuilder:selectablefield').map((m) => {
    const jsonPath = String(m.args.JSONPath);
    requirePath(schema, jsonPath, m, declaration.name, ['string', 'integer', 'boolean']);
    return { jsonPath };
  });
  if (selectable.length > 0) entry.selectableFields = selectable;
  // controller-gen writes an empty subresources object once printer columns exist; kop matches it byte for byte.
  if (Object.keys(subresources).length > 0 || columns.length > 0) entry.subresources = subresources;
  return entry;
}

/** Resolves a simple JSONPath (`.spec.replicas`) in the schema; errors at the marker when it does not exist. */
function requirePath(
  schema: JSONSchemaProps,
  jsonPath: string,
  marker: Marker,
  subject: string,
  types: string[],
): void {
  let node: JSONSchemaProps | undefined = schema;
  for (const part of jsonPath.replace(/^\./, '').split('.')) node = node?.properties?.[part];
  const fail = (problem: string): never => {
    throw new MarkerPlacementError(
      marker.location satisfies SourceLocation,
      `${subject} (+${marker.name})`,
      `path ${jsonPath} ${problem}`,
      'point it at an existing field, e.g. .spec.replicas',
    );
  };
  if (!node) fail('is not a field of the kind');
  if (node!.type && !types.includes(node!.type)) fail(`is a ${node!.type}, and this needs ${types.join(' or ')}`);
}

function keyValues(marker: Marker | undefined, key: string): Record<string, string> | undefined {
  const list = marker?.args[key];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const item of list as JSONValue[]) {
    const text = String(item);
    const eq = text.indexOf('=');
    if (eq < 0) {
      throw new MarkerPlacementError(
        marker!.location,
        `+${marker!.name}`,
        `"${text}" is not key=value`,
        `write ${key}="key=value"`,
      );
    }
    out[text.slice(0, eq)] = text.slice(eq + 1);
  }
  return out;
}

/** The YAML file of one CRD: the generated-file header, then the document with sorted keys. */
export function formatCrd(crd: CustomResourceDefinition): string {
  return generatedYamlDocuments([crd]);
}
