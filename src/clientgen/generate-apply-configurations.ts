/**
 * Typed server-side apply configurations (`kop create api --ssa`): for each kind version that
 * PROJECT records with `api.ssa: true`, `api/<group>/<version>/<kind-lower>.apply.ts` with
 * `<Kind>ApplyConfiguration`, one `<Type>ApplyConfiguration` per type the kind reaches, and
 * builders that fill in the object's identity. They are written from the same API model as the
 * CRD, so what the types require is what server-side apply needs:
 *
 * - every field is optional (a manager applies only the fields it owns), except
 * - apiVersion, kind and metadata.name (and metadata.namespace for namespaced kinds), and
 * - in a `+listType=map` list, each item's `+listMapKey` fields: the apiserver merges items by
 *   them. A key with a default (`+kubebuilder:default`) stays optional, as the apiserver fills it.
 *
 * Like Kubebuilder's apply configurations (generated only for the APIs created with --ssa), they
 * are emitted only for kinds that opted in; other kinds have their descriptor only.
 */
import * as path from 'node:path';
import { KopError } from '../base/index.js';
import { fullGroup, type ProjectFile, descriptorNameOf } from '../project/index.js';
import { GENERATED_HEADER } from '../scaffold/index.js';
import {
  allFields,
  findMarker,
  markersNamed,
  type Marker,
  type ApiKind,
  type ApiKindVersion,
  type ApiModel,
  type FieldModel,
  type TypeDeclaration,
  type TypeRef,
} from '../schema/index.js';
import type { GeneratedClientFile } from './generate-clients.js';

/** The modules the generated apply configurations import from. */
const API_MODULE = 'kop/api';
const RUNTIME_MODULE = 'kop/runtime/client';

/** kop/api names that are scalars or free-form JSON: used as they are, not made deep-partial. */
const PLAIN_WELL_KNOWN = new Set([
  'int',
  'int32',
  'int64',
  'Quantity',
  'IntOrString',
  'Time',
  'MicroTime',
  'Duration',
  'JSON',
  'JSONValue',
  'JSONObject',
  'RawExtension',
]);

/** True when PROJECT records server-side apply for this kind version (`create api --ssa`). */
export function ssaEnabled(project: ProjectFile | undefined, kind: ApiKind, version: ApiKindVersion): boolean {
  return (project?.resources ?? []).some(
    (r) => r.api?.ssa === true && r.kind === kind.kind && r.version === version.version && fullGroup(r) === kind.group,
  );
}

/** The path of a kind version's apply-configuration file. */
export function applyConfigurationPath(kind: ApiKind, version: ApiKindVersion): string {
  return path.posix.join(version.package.dir, `${kind.kind.toLowerCase()}.apply.ts`);
}

/** Renders the apply configurations of every served kind version PROJECT marks `ssa: true`, sorted by path. */
export function generateApplyConfigurations(model: ApiModel, project: ProjectFile | undefined): GeneratedClientFile[] {
  const files: GeneratedClientFile[] = [];
  for (const kind of model.kinds) {
    for (const version of kind.versions) {
      if (version.skipped || !version.served || !ssaEnabled(project, kind, version)) continue;
      files.push(renderApplyConfigurations(kind, version));
    }
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Renders one kind version's apply-configuration file. */
export function renderApplyConfigurations(kind: ApiKind, version: ApiKindVersion): GeneratedClientFile {
  const file = applyConfigurationPath(kind, version);
  const writer = new ApplyTypeWriter(kind.kind);
  const T = kind.kind;
  const apiVersion = `${kind.group}/${version.version}`;
  const namespaced = kind.scope === 'Namespaced';
  const hasStatusSubresource = findMarker(version.declaration.markers, 'kubebuilder:subresource:status') !== undefined;
  // The root's apply configuration is written below with its identity; a reference back to it uses that name.
  writer.reserve(version.declaration, `${T}ApplyConfiguration`);
  writer.usesApi('ObjectMeta');
  writer.usesDeepPartial = true;

  // The root type: its identity is required, the rest is what the manager owns.
  const identity = new Set(['apiVersion', 'kind', 'metadata']);
  const ownMetadata = "DeepPartial<Omit<ObjectMeta, 'name' | 'namespace'>>";
  const metadataType = `${ownMetadata} & { name: string${namespaced ? '; namespace: string' : ''} }`;
  const rootMembers = [
    `  apiVersion: '${apiVersion}';`,
    `  kind: '${T}';`,
    `  /** The object's identity and the metadata (labels, annotations, finalizers, owner references) this manager owns. */`,
    `  metadata: ${metadataType};`,
    ...version.fields.filter((f) => !identity.has(f.name)).flatMap((f) => writer.member(f, false, `${T}.${f.name}`)),
  ];
  const statusType = version.status
    ? writer.typeOf(version.status.type, version.status.markers, `${T}.status`)
    : undefined;
  const named = writer.renderNamed();

  const scope = namespaced ? 'name: string, namespace: string' : 'name: string';
  const identityNames = namespaced ? 'name, namespace' : 'name';
  const identityValue = `{ ${identityNames} }`;
  const fieldsType = `Omit<${T}ApplyConfiguration, 'apiVersion' | 'kind' | 'metadata'> & { metadata?: ${ownMetadata} }`;
  const builders = [
    '/**',
    ` * A ${T} apply configuration naming one object, with the fields this manager owns; pass it to`,
    ` * \`client.apply(${descriptorNameOf(T)}, ..., { fieldManager })\`.`,
    ' */',
    `export function applyConfigurationFor${T}(${scope}, fields: ${fieldsType} = {}): ${T}ApplyConfiguration {`,
    `  return { ...fields, apiVersion: '${apiVersion}', kind: '${T}', metadata: { ...fields.metadata, ${identityNames} } };`,
    '}',
  ];
  if (statusType !== undefined && hasStatusSubresource) {
    builders.push(
      '',
      `/** What \`client.status().apply\` sends for a ${T}: its identity and the status fields this manager owns (no spec: the status subresource ignores it). */`,
      `export type ${T}StatusApply = Pick<${T}ApplyConfiguration, 'apiVersion' | 'kind' | 'metadata'> & { status: ${statusType} };`,
      '',
      '/**',
      ` * A ${T} status apply configuration: pass it to \`client.status().apply(${descriptorNameOf(T)}, ..., { fieldManager })\`.`,
      ' * Applying to the status subresource never creates the object: a deleted one answers NotFound.',
      ' */',
      `export function statusApplyConfigurationFor${T}(${scope}, status: ${statusType}): ${T}StatusApply {`,
      `  return { apiVersion: '${apiVersion}', kind: '${T}', metadata: ${identityValue}, status };`,
      '}',
    );
  }

  const imports: string[] = [];
  if (writer.apiNames.size > 0)
    imports.push(`import type { ${[...writer.apiNames].sort().join(', ')} } from '${API_MODULE}';`);
  if (writer.usesDeepPartial) imports.push(`import type { DeepPartial } from '${RUNTIME_MODULE}';`);

  const content = [
    `// ${GENERATED_HEADER}`,
    `// Server-side apply configurations for ${T} (${apiVersion}), from ${version.declaration.file}.`,
    '',
    ...imports,
    '',
    '/**',
    ` * A server-side apply configuration of a ${T}: the fields one field manager owns. Every field is`,
    ` * optional except the object's identity (apiVersion, kind, metadata.name${namespaced ? ', metadata.namespace' : ''}) and the key`,
    ' * fields of each item of a +listType=map list. Fields left out are not owned, so applying never',
    ' * clears what another manager (or a user) set; a field this manager stops sending is removed',
    ' * unless another manager owns it too.',
    ' */',
    `export interface ${T}ApplyConfiguration {`,
    ...rootMembers,
    '}',
    '',
    ...named,
    ...builders,
    '',
  ].join('\n');
  return { path: file, content };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Writes the apply-configuration types of the declarations one kind reaches. */
class ApplyTypeWriter {
  readonly apiNames = new Set<string>();
  usesDeepPartial = false;
  /** Emitted name by declaration, in the order they were reached. */
  private readonly names = new Map<TypeDeclaration, string>();
  private readonly declarationsByName = new Map<string, TypeDeclaration>();
  private readonly rendered: string[] = [];
  private readonly pending: TypeDeclaration[] = [];

  constructor(private readonly kind: string) {}

  /** Names a declaration that is rendered elsewhere (the kind's root type). */
  reserve(declaration: TypeDeclaration, name: string): void {
    this.names.set(declaration, name);
    this.declarationsByName.set(name, declaration);
  }

  usesApi(name: string): void {
    this.apiNames.add(name);
  }

  /** The lines of one property: its doc comment and `name?: Type;` (`required` for list-map keys). */
  member(field: FieldModel, required: boolean, site: string): string[] {
    const doc = field.doc.trim();
    const docLines = doc === '' ? [] : doc.replace(/\*\//g, '*\\/').split('\n');
    const lines =
      docLines.length === 0
        ? []
        : docLines.length === 1
          ? [`  /** ${docLines[0]} */`]
          : ['  /**', ...docLines.map((l) => `   * ${l}`.trimEnd()), '   */'];
    const name = IDENTIFIER.test(field.name) ? field.name : JSON.stringify(field.name);
    lines.push(`  ${name}${required ? '' : '?'}: ${this.typeOf(field.type, field.markers, site)};`);
    return lines;
  }

  /** The apply-configuration type of `ref`; `markers` are the field's (list type and keys). */
  typeOf(ref: TypeRef, markers: readonly Marker[], site: string): string {
    switch (ref.kind) {
      case 'string':
      case 'boolean':
      case 'number':
        return ref.kind;
      case 'enum':
        return ref.values
          .map((v) => (typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(v)))
          .join(' | ');
      case 'wellKnown':
        this.usesApi(ref.name);
        if (PLAIN_WELL_KNOWN.has(ref.name)) return ref.name;
        this.usesDeepPartial = true;
        return `DeepPartial<${ref.name}>`;
      case 'array': {
        const listType = findMarker(markers, 'listType')?.value;
        // listMapKey's value is a field name (a string), as the CRD stage reads it.
        const keys = markersNamed(markers, 'listMapKey').map((m) =>
          typeof m.value === 'string' ? m.value : JSON.stringify(m.value),
        );
        const item =
          listType === 'map' && keys.length > 0
            ? this.keyedItem(ref.items, keys, site)
            : this.typeOf(ref.items, [], `${site}[]`);
        return /^[A-Za-z0-9_$<>]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
      }
      case 'map':
        return `Record<string, ${this.typeOf(ref.values, [], `${site}{}`)}>`;
      case 'reference': {
        const target = ref.target;
        if (
          target.declarationKind === 'alias' &&
          target.aliasOf &&
          target.aliasOf.kind !== 'object' &&
          target.aliasOf.kind !== 'intersection'
        ) {
          // An alias of a scalar, enum, list or map: its markers (+listType on `type Items = Item[]`) count as the field's.
          return this.typeOf(target.aliasOf, [...markers, ...target.markers], site);
        }
        return this.nameOf(target);
      }
      case 'object':
        return this.objectLiteral(ref.fields, new Set(), site);
      case 'intersection':
        return ref.members.map((m) => this.typeOf(m, [], site)).join(' & ');
      case 'union':
        return ref.members.map((m) => this.typeOf(m, [], site)).join(' | ');
      case 'untyped':
        return 'unknown';
      case 'unresolved':
        throw new KopError(
          `${this.kind}: ${site} has the type "${ref.text}" that kop cannot follow (${ref.reason}), so its apply configuration cannot be generated`,
          ref.fix,
        );
    }
  }

  /** An item of a +listType=map list: its apply configuration with the key fields required. */
  private keyedItem(items: TypeRef, keys: string[], site: string): string {
    let ref = items;
    // Through aliases of other named types (`type Item = Other` or `type Item = Condition`).
    while (
      ref.kind === 'reference' &&
      ref.target.declarationKind === 'alias' &&
      (ref.target.aliasOf?.kind === 'reference' || ref.target.aliasOf?.kind === 'wellKnown')
    ) {
      ref = ref.target.aliasOf;
    }
    if (ref.kind === 'wellKnown') {
      this.usesApi(ref.name);
      this.usesDeepPartial = true;
      return `DeepPartial<${ref.name}> & Required<Pick<${ref.name}, ${keys.map((k) => `'${k}'`).join(' | ')}>>`;
    }
    const fields = ref.kind === 'reference' ? allFields(ref.target) : ref.kind === 'object' ? ref.fields : undefined;
    if (!fields)
      throw new KopError(
        `${this.kind}: ${site} is a +listType=map list, but its items are not objects (${items.text})`,
        'list objects, or use +listType=set / +listType=atomic',
      );
    const required = new Set<string>();
    for (const key of keys) {
      const field = fields.find((f) => f.name === key);
      if (!field)
        throw new KopError(
          `${this.kind}: ${site} has +listMapKey=${key}, which is not a field of its items (${items.text})`,
          'name a field of the item type',
        );
      // A defaulted key may be left out: the apiserver fills it in before it merges the items.
      if (!findMarker(field.markers, 'kubebuilder:default') && !findMarker(field.markers, 'default')) required.add(key);
    }
    if (ref.kind === 'object') return this.objectLiteral(ref.fields, required, `${site}[]`);
    if (ref.kind !== 'reference') throw new Error(`unreachable: ${ref.kind}`);
    const base = this.nameOf(ref.target);
    if (required.size === 0) return base;
    const keyMembers = fields
      .filter((f) => required.has(f.name))
      .map(
        (f) =>
          `${IDENTIFIER.test(f.name) ? f.name : JSON.stringify(f.name)}: ${this.typeOf(f.type, f.markers, `${site}[].${f.name}`)}`,
      );
    return `${base} & { ${keyMembers.join('; ')} }`;
  }

  private objectLiteral(fields: readonly FieldModel[], required: ReadonlySet<string>, site: string): string {
    if (fields.length === 0) return 'Record<string, never>';
    const members = fields.map(
      (f) =>
        `${IDENTIFIER.test(f.name) ? f.name : JSON.stringify(f.name)}${required.has(f.name) ? '' : '?'}: ${this.typeOf(f.type, f.markers, `${site}.${f.name}`)}`,
    );
    return `{ ${members.join('; ')} }`;
  }

  /** The emitted name of a declaration's apply configuration, queuing it for rendering on first use. */
  private nameOf(declaration: TypeDeclaration): string {
    const known = this.names.get(declaration);
    if (known) return known;
    const name = `${declaration.name}ApplyConfiguration`;
    const other = this.declarationsByName.get(name);
    if (other) {
      throw new KopError(
        `${this.kind} reaches two types named ${declaration.name} (${other.file} and ${declaration.file}), whose apply configurations would share the name ${name}`,
        'rename one of them',
      );
    }
    this.names.set(declaration, name);
    this.declarationsByName.set(name, declaration);
    this.pending.push(declaration);
    return name;
  }

  /** Renders every declaration reached so far (and those they reach), in the order reached. */
  renderNamed(): string[] {
    while (this.pending.length > 0) {
      const declaration = this.pending.shift()!;
      const name = this.names.get(declaration)!;
      const parents = [
        ...declaration.extends,
        ...(declaration.aliasOf?.kind === 'intersection' ? declaration.aliasOf.members : []),
      ]
        .filter((p): p is Extract<TypeRef, { kind: 'wellKnown' }> => p.kind === 'wellKnown')
        .map((p) => this.typeOf(p, [], declaration.name));
      const members = allFields(declaration).flatMap((f) => this.member(f, false, `${declaration.name}.${f.name}`));
      const doc = `/** Apply configuration of ${declaration.name} (${declaration.file}): every field optional. */`;
      if (parents.length === 0) {
        this.rendered.push(doc, `export interface ${name} {`, ...members, '}', '');
      } else {
        this.rendered.push(doc, `export type ${name} = ${parents.join(' & ')} & {`, ...members, '};', '');
      }
    }
    return this.rendered;
  }
}
