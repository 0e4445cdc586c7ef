/**
 * Stage of the schema pipeline that assembles kinds: root types (+kubebuilder:object:root)
 * grouped by group and kind across versions, with their names, scope, storage version and the
 * resource markers, checked as the apiserver will check them.
 */
import type { ApiKind, ApiKindVersion, ApiPackage, FieldModel, TypeDeclaration, TypeRef } from './model-types.js';
import { decideStorageVersion, STORAGE_VERSION_MARKER } from '../markers/index.js';
import { type ProjectFile, fullGroup, pluralOfKind } from '../project/index.js';
import { MarkerPlacementError, StorageVersionError } from './errors.js';
import { crdMarker, findMarker, type Marker } from './markers.js';

/** What the apiserver requires of a CRD's plural, singular, short names and categories. */
const DNS1035_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function collectKinds(packages: ApiPackage[], project: ProjectFile | undefined): ApiKind[] {
  const byKey = new Map<
    string,
    { group: string; kind: string; entries: { pkg: ApiPackage; declaration: TypeDeclaration }[] }
  >();
  for (const pkg of packages) {
    for (const declaration of pkg.declarations.values()) {
      const root = findMarker(declaration.markers, 'kubebuilder:object:root');
      if (!root || root.value === false) continue;
      const fields = allFields(declaration);
      const metadata = fields.find((f) => f.name === 'metadata');
      const isList =
        fields.some((f) => f.name === 'items') &&
        (metadata?.type.kind !== 'wellKnown' || metadata.type.name === 'ListMeta');
      if (isList) continue;
      const key = `${pkg.group}/${declaration.name}`;
      const entry = byKey.get(key) ?? { group: pkg.group, kind: declaration.name, entries: [] };
      entry.entries.push({ pkg, declaration });
      byKey.set(key, entry);
    }
  }
  const kinds: ApiKind[] = [];
  for (const { group, kind, entries } of byKey.values()) {
    const markersOf = (name: string) =>
      entries.map((e) => findMarker(e.declaration.markers, name)).find((m) => m !== undefined);
    const resource = markersOf('kubebuilder:resource');
    const projectResource = project?.resources.find((r) => r.kind === kind && fullGroup(r) === group);
    const plural = stringValue(resource?.args.path) ?? projectResource?.plural ?? pluralOfKind(kind);
    const scopeArg = stringValue(resource?.args.scope);
    if (scopeArg !== undefined && scopeArg !== 'Namespaced' && scopeArg !== 'Cluster') {
      throw new MarkerPlacementError(
        resource!.location,
        `${kind} (+kubebuilder:resource)`,
        `scope "${scopeArg}" is not Namespaced or Cluster`,
        'write scope=Namespaced or scope=Cluster',
      );
    }
    const singular = stringValue(resource?.args.singular) ?? kind.toLowerCase();
    const shortNames = stringList(resource?.args.shortName);
    const categories = stringList(resource?.args.categories);
    for (const [argument, names] of [
      ['path', [plural]],
      ['singular', [singular]],
      ['shortName', shortNames ?? []],
      ['categories', categories ?? []],
    ] as const) {
      const bad = names.find((name) => !DNS1035_LABEL.test(name));
      if (bad !== undefined) {
        throw new MarkerPlacementError(
          resource?.location ?? entries[0]!.declaration.location,
          `${kind} (+kubebuilder:resource)`,
          `${argument} "${bad}" is not a lower-case DNS-1035 label, which the apiserver requires of CRD names`,
          'use lower-case letters, digits and "-", starting with a letter, at most 63 characters',
        );
      }
    }
    const scope =
      (scopeArg as ApiKind['scope'] | undefined) ??
      (projectResource?.api?.namespaced === false ? 'Cluster' : 'Namespaced');
    const versions = entries.map(({ pkg, declaration }) => kindVersion(pkg, declaration));
    const seenVersions = new Map<string, ApiKindVersion>();
    for (const v of versions) {
      const other = seenVersions.get(v.version);
      if (other) {
        throw new StorageVersionError(
          v.declaration.location,
          `${kind} (${group})`,
          `version ${v.version} is declared twice (also at ${other.declaration.location.file}:${other.declaration.location.line})`,
          'keep one declaration of the kind per group version',
        );
      }
      seenVersions.set(v.version, v);
    }
    versions.sort((a, b) => compareKubeVersions(b.version, a.version));
    const inCrd = versions.filter((v) => !v.skipped);
    // The rule create api and create webhook apply to the types files too (markers/storage-version.ts).
    const { storage, marked } = decideStorageVersion(
      inCrd,
      (v) => findMarker(v.declaration.markers, STORAGE_VERSION_MARKER.slice(1)) !== undefined,
    );
    if (inCrd.length > 0 && storage === undefined) {
      const at = (marked[1] ?? inCrd[0]!).declaration.location;
      throw new StorageVersionError(
        at,
        `${kind} (${group})`,
        marked.length === 0
          ? `has versions ${inCrd.map((v) => v.version).join(', ')} and none is marked as the storage version`
          : `has ${marked.length} storage versions (${marked.map((v) => v.version).join(', ')})`,
        `put ${STORAGE_VERSION_MARKER} on exactly one version of the kind`,
      );
    }
    for (const v of inCrd) v.storage = v === storage;
    kinds.push({
      group,
      kind,
      listKind: `${kind}List`,
      plural,
      singular,
      scope,
      shortNames,
      categories,
      versions,
    });
  }
  return kinds.sort((a, b) => (a.group === b.group ? (a.kind < b.kind ? -1 : 1) : a.group < b.group ? -1 : 1));
}

function kindVersion(pkg: ApiPackage, declaration: TypeDeclaration): ApiKindVersion {
  const fields = allFields(declaration);
  const version: ApiKindVersion = {
    version: pkg.version,
    package: pkg,
    declaration,
    spec: fields.find((f) => f.name === 'spec'),
    status: fields.find((f) => f.name === 'status'),
    fields,
    storage: false,
    served: true,
    deprecated: false,
    skipped: false,
  };
  for (const marker of declaration.markers) crdMarker(marker).applyToKindVersion?.(version, marker);
  return version;
}

/** Orders Kubernetes versions: v2 > v1 > v1beta2 > v1beta1 > v1alpha1; others alphabetically after. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return { major: Number(m[1]), stage: m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, minor: Number(m[3] ?? 0) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (!pa || !pb) return pa ? 1 : pb ? -1 : a < b ? 1 : a > b ? -1 : 0;
  if (pa.stage !== pb.stage) return pa.stage - pb.stage;
  if (pa.major !== pb.major) return pa.major - pb.major;
  return pa.minor - pb.minor;
}

export function stringValue(value: Marker | Marker['value'] | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object' && !Array.isArray(value) && 'name' in value && 'location' in value) {
    const v = (value as Marker).value;
    return typeof v === 'string' ? v : undefined;
  }
  return typeof value === 'string' ? value : undefined;
}

function stringList(value: Marker['value'] | undefined): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/**
 * Every field of an interface or object alias, inherited ones first (as Go's inlined
 * embedded structs); a later declaration of the same name wins. Cycles stop silently
 * here; to-openapi.ts reports them.
 */
export function allFields(declaration: TypeDeclaration, seen = new Set<TypeDeclaration>()): FieldModel[] {
  if (seen.has(declaration)) return [];
  seen.add(declaration);
  const collected: FieldModel[] = [];
  const fromRef = (ref: TypeRef): FieldModel[] => {
    if (ref.kind === 'reference') return allFields(ref.target, seen);
    if (ref.kind === 'object') return ref.fields;
    if (ref.kind === 'intersection') return ref.members.flatMap(fromRef);
    return [];
  };
  for (const parent of declaration.extends) collected.push(...fromRef(parent));
  if (declaration.aliasOf) collected.push(...fromRef(declaration.aliasOf));
  collected.push(...declaration.fields);
  const byName = new Map<string, FieldModel>();
  for (const field of collected) {
    byName.delete(field.name);
    byName.set(field.name, field);
  }
  return [...byName.values()];
}
