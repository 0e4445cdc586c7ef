/**
 * Stage 5: the CustomResourceDefinition envelope around each kind's schemas — names,
 * scope, versions (exactly one storage version; deprecated, unserved and skipped
 * versions), subresources, printer columns, selectable fields, CRD labels and
 * annotations — and its deterministic YAML.
 */
import { generatedYamlDocuments } from '../scaffold/index.js';
import { MarkerPlacementError, SchemaErrors, type SourceLocation } from './errors.js';
import { KopError, kopVersion } from '../base/index.js';
import type { JSONSchemaProps } from './json-schema.js';
import { crdMarker, type Marker } from './markers.js';
import type { ApiKind, ApiKindVersion, ApiModel } from './model.js';
import { assertStructural, topLevelMetadata, truncateDescriptions } from './structural.js';
import { OpenApiConverter, type OpenApiOptions } from './to-openapi.js';

export interface CrdOptions extends OpenApiOptions {
  /** Cap on every description, in bytes (controller-gen's `crd:maxDescLen`); 0 drops descriptions. */
  maxDescriptionLength?: number;
}

import type { CrdVersion, CustomResourceDefinition } from './crd-types.js';

export type { CrdVersion, CustomResourceDefinition } from './crd-types.js';

/** One CRD ready to write. */
export interface GeneratedCrd {
  kind: ApiKind;
  /** `config/crd/bases/<group>_<plural>.yaml` relative path's file name. */
  fileName: string;
  crd: CustomResourceDefinition;
}

/**
 * The annotation on every CRD kop writes, naming the generator and its version, as controller-gen
 * writes `controller-gen.kubebuilder.io/version`: a cluster admin can tell which tool made a CRD.
 */
export const GENERATOR_ANNOTATION = 'kop.dev/version';

/** Builds the CRD of every kind in the model, sorted by file name, each annotated with kop's version. */
export function buildCrds(model: ApiModel, options: CrdOptions = {}): GeneratedCrd[] {
  const converter = new OpenApiConverter(model, options);
  // Every kind is tried, so one run reports the problems of all of them.
  const crds: GeneratedCrd[] = [];
  const errors: KopError[] = [...model.problems];
  for (const kind of model.kinds) {
    try {
      const crd = buildCrd(kind, converter, options);
      crd.metadata.annotations = { [GENERATOR_ANNOTATION]: kopVersion(), ...crd.metadata.annotations };
      crds.push({ kind, fileName: `${kind.group}_${kind.plural}.yaml`, crd });
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
  const metadata: CustomResourceDefinition['metadata'] = { name: `${kind.plural}.${kind.group}` };
  const names: CustomResourceDefinition['spec']['names'] = {
    kind: kind.kind,
    listKind: kind.listKind,
    plural: kind.plural,
    singular: kind.singular,
  };
  if (kind.shortNames.length > 0) names.shortNames = kind.shortNames;
  if (kind.categories.length > 0) names.categories = kind.categories;
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata,
    spec: { group: kind.group, names, scope: kind.scope, versions },
  };
  // A CRD-level marker applies once, from the first version that carries it.
  const applied = new Set<string>();
  for (const marker of kind.versions.flatMap((v) => v.declaration.markers)) {
    const effect = crdMarker(marker).applyToCrd;
    if (!effect || applied.has(marker.name)) continue;
    applied.add(marker.name);
    effect(crd, marker);
  }
  return crd;
}

function buildVersion(version: ApiKindVersion, converter: OpenApiConverter, options: CrdOptions): CrdVersion {
  const declaration = version.declaration;
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
  for (const marker of declaration.markers) {
    crdMarker(marker).applyToVersion?.({
      marker,
      subject: declaration.name,
      version: entry,
      schema,
      requirePath: (jsonPath, types) => requirePath(schema, jsonPath, marker, declaration.name, types),
    });
  }
  // controller-gen writes an empty subresources object once printer columns exist; kop matches it byte for byte.
  if (entry.additionalPrinterColumns && !entry.subresources) entry.subresources = {};
  return entry;
}

/** Resolves a simple JSONPath (`.spec.replicas`) in the schema; errors at the marker when it does not exist. */
function requirePath(
  schema: JSONSchemaProps,
  jsonPath: string,
  marker: Marker,
  subject: string,
  types: readonly string[],
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

/** The YAML file of one CRD: the generated-file header, then the document with sorted keys. */
export function formatCrd(crd: CustomResourceDefinition): string {
  return generatedYamlDocuments([crd]);
}
