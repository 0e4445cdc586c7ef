/**
 * Stage 2 of `kop import crd`: a document checked to be an apiextensions.k8s.io/v1
 * CustomResourceDefinition kop can import — names, versions, and a structural schema per
 * version — and reduced to what kop's CRD generator writes. Problems name the document and,
 * where they are in a schema, the JSON path (`spec.versions[v1] .spec.replicas`).
 */
import { KopError } from '../base/index.js';
import { checkVersion } from '../project/index.js';
import {
  GENERATOR_ANNOTATION,
  type CrdVersion,
  type CustomResourceDefinition,
  type JSONSchemaProps,
  checkStructural,
} from '../schema/index.js';
import type { CrdDocument } from './crd-documents.js';

/** A CRD ready to become types: the input reduced to the parts kop writes. */
export interface ImportedCrd {
  where: string;
  /** What kop generate must give back for an owned import (metadata trimmed, see `expectedCrd`). */
  crd: CustomResourceDefinition;
}

/** A problem with one document, named with its source and, in a schema, its path. */
export class ImportError extends KopError {
  constructor(where: string, problem: string, hint?: string) {
    super(`${where}: ${problem}`, hint);
  }
}

/** Annotations tools write on the CRDs they generate, which say nothing about the API (the generator annotation aside). */
export const TOOL_ANNOTATIONS = new Set([
  'controller-gen.kubebuilder.io/version',
  GENERATOR_ANNOTATION,
  'kubectl.kubernetes.io/last-applied-configuration',
]);

const SPEC_KEYS = new Set(['group', 'names', 'scope', 'versions', 'conversion', 'preserveUnknownFields']);
const NAMES_KEYS = new Set(['kind', 'listKind', 'plural', 'singular', 'shortNames', 'categories']);
const VERSION_KEYS = new Set([
  'name',
  'served',
  'storage',
  'deprecated',
  'deprecationWarning',
  'schema',
  'subresources',
  'additionalPrinterColumns',
  'selectableFields',
]);

/** Checks one document and returns the CRD kop would have to give back; throws an ImportError naming what is wrong. */
export function importedCrd(document: CrdDocument): ImportedCrd {
  const { where } = document;
  const value = document.value;
  if (!isObject(value)) throw new ImportError(where, 'is not a CustomResourceDefinition (not a YAML mapping)');
  if (value.kind !== 'CustomResourceDefinition') {
    throw new ImportError(
      where,
      `is not a CustomResourceDefinition (kind: ${JSON.stringify(value.kind ?? null)})`,
      'pass files that hold CRDs (kind: CustomResourceDefinition)',
    );
  }
  if (value.apiVersion === 'apiextensions.k8s.io/v1beta1') {
    throw new ImportError(
      where,
      'is an apiextensions.k8s.io/v1beta1 CRD, which Kubernetes stopped serving in 1.22',
      'import the apiextensions.k8s.io/v1 form: the one the operator publishes today, or `kubectl get crd <name> -o yaml` from a current cluster',
    );
  }
  if (value.apiVersion !== 'apiextensions.k8s.io/v1')
    throw new ImportError(
      where,
      `has apiVersion ${JSON.stringify(value.apiVersion)}; kop imports apiextensions.k8s.io/v1 CRDs`,
    );
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const spec = value.spec;
  if (!isObject(spec)) throw new ImportError(where, 'has no spec');
  refuseUnknown(where, 'spec', spec, SPEC_KEYS);
  const group = requireString(where, 'spec.group', spec.group);
  const names = spec.names;
  if (!isObject(names)) throw new ImportError(where, 'has no spec.names');
  refuseUnknown(where, 'spec.names', names, NAMES_KEYS);
  const kind = requireString(where, 'spec.names.kind', names.kind);
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind))
    throw new ImportError(
      where,
      `spec.names.kind "${kind}" is not an UpperCamelCase identifier, which a TypeScript interface needs`,
    );
  const plural = requireString(where, 'spec.names.plural', names.plural);
  const name = requireString(where, 'metadata.name', metadata.name);
  if (name !== `${plural}.${group}`)
    throw new ImportError(
      where,
      `metadata.name "${name}" is not <plural>.<group> ("${plural}.${group}"), as the apiserver requires`,
    );
  const scope = spec.scope;
  if (scope !== 'Namespaced' && scope !== 'Cluster')
    throw new ImportError(where, `spec.scope ${JSON.stringify(scope)} is not Namespaced or Cluster`);
  const conversion = spec.conversion;
  if (
    conversion !== undefined &&
    !(isObject(conversion) && conversion.strategy === 'None' && Object.keys(conversion).length === 1)
  ) {
    throw new ImportError(
      where,
      `spec.conversion has strategy ${JSON.stringify(isObject(conversion) ? conversion.strategy : conversion)}; kop adds conversion webhooks to a CRD through kustomize, not in its base`,
      'remove spec.conversion from the file to import the types, then run `kop create webhook --conversion` for an owned kind',
    );
  }
  if (spec.preserveUnknownFields === true)
    throw new ImportError(where, 'spec.preserveUnknownFields is true, which apiextensions.k8s.io/v1 no longer allows');
  if (!Array.isArray(spec.versions) || spec.versions.length === 0) throw new ImportError(where, 'has no spec.versions');

  const versions = spec.versions.map((v: unknown, i: number) => importedVersion(where, v, i));
  const seen = new Set<string>();
  for (const v of versions) {
    if (seen.has(v.name)) throw new ImportError(where, `spec.versions lists ${v.name} twice`);
    seen.add(v.name);
  }
  if (versions.filter((v) => v.storage).length !== 1)
    throw new ImportError(where, 'spec.versions must have exactly one storage version');

  const crdNames: CustomResourceDefinition['spec']['names'] = {
    kind,
    listKind: typeof names.listKind === 'string' ? names.listKind : `${kind}List`,
    plural,
    singular: typeof names.singular === 'string' ? names.singular : kind.toLowerCase(),
  };
  const shortNames = stringList(where, 'spec.names.shortNames', names.shortNames);
  const categories = stringList(where, 'spec.names.categories', names.categories);
  if (shortNames.length > 0) crdNames.shortNames = shortNames;
  if (categories.length > 0) crdNames.categories = categories;
  const crdMetadata: CustomResourceDefinition['metadata'] = { name };
  const annotations = stringMap(where, 'metadata.annotations', metadata.annotations, TOOL_ANNOTATIONS);
  const labels = stringMap(where, 'metadata.labels', metadata.labels, new Set());
  if (annotations) crdMetadata.annotations = annotations;
  if (labels) crdMetadata.labels = labels;
  return {
    where,
    crd: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: crdMetadata,
      spec: { group, names: crdNames, scope, versions },
    },
  };
}

function importedVersion(where: string, value: unknown, index: number): CrdVersion {
  if (!isObject(value)) throw new ImportError(where, `spec.versions[${index}] is not a mapping`);
  const name = requireString(where, `spec.versions[${index}].name`, value.name);
  const check = checkVersion(name);
  if (check !== true) throw new ImportError(where, `spec.versions[${index}].name: ${check}`);
  const at = `spec.versions[${name}]`;
  refuseUnknown(where, at, value, VERSION_KEYS);
  const schema = isObject(value.schema) ? value.schema.openAPIV3Schema : undefined;
  if (!isObject(schema))
    throw new ImportError(where, `${at} has no schema.openAPIV3Schema, which apiextensions.k8s.io/v1 requires`);
  const openAPIV3Schema = schema as JSONSchemaProps;
  const violations = checkStructural(openAPIV3Schema, new WeakMap(), { file: where, line: 0 });
  if (violations.length > 0) {
    const shown = violations.slice(0, 10).map((v) => `${v.path}: ${v.message}`);
    throw new ImportError(
      where,
      `${at} has a schema that is not structural, which the apiserver refuses:\n  ${shown.join('\n  ')}${violations.length > 10 ? `\n  (and ${violations.length - 10} more)` : ''}`,
      'fix the CRD (it would not install either), then import it',
    );
  }
  const version: CrdVersion = {
    name,
    served: value.served === true,
    storage: value.storage === true,
    schema: { openAPIV3Schema },
  };
  if (value.deprecated === true) version.deprecated = true;
  if (typeof value.deprecationWarning === 'string') version.deprecationWarning = value.deprecationWarning;
  if (value.subresources !== undefined) version.subresources = value.subresources as CrdVersion['subresources'];
  if (value.additionalPrinterColumns !== undefined)
    version.additionalPrinterColumns = value.additionalPrinterColumns as CrdVersion['additionalPrinterColumns'];
  if (value.selectableFields !== undefined)
    version.selectableFields = value.selectableFields as CrdVersion['selectableFields'];
  return version;
}

function refuseUnknown(where: string, at: string, object: Record<string, unknown>, known: ReadonlySet<string>): void {
  const unknown = Object.keys(object).find((key) => !known.has(key));
  if (unknown !== undefined)
    throw new ImportError(where, `${at}.${unknown} is not a field of a v1 CustomResourceDefinition that kop knows`);
}

function requireString(where: string, at: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new ImportError(where, `has no ${at}`);
  return value;
}

function stringList(where: string, at: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new ImportError(where, `${at} is not a list of strings`);
  return value as string[];
}

function stringMap(
  where: string,
  at: string,
  value: unknown,
  drop: ReadonlySet<string>,
): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new ImportError(where, `${at} is not a mapping`);
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (drop.has(key)) continue;
    if (typeof v !== 'string') throw new ImportError(where, `${at}.${key} is not a string`);
    out[key] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
