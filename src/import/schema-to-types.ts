/**
 * Stage 3 of `kop import crd`: one version of a CRD becomes TypeScript declarations whose
 * doc comments and markers make `kop generate manifests` write that version's schema back.
 * It is the inverse of schema/to-openapi.ts, and follows the same rules:
 *
 * - an object with properties is an interface; its description and constraints go on the
 *   field that holds it (a field's layer is flattened over its named type, as controller-gen
 *   flattens), or on the interface itself when it is a list item or map value;
 * - a subtree that is exactly a kop/api core type's schema (PodSpec, Condition, Quantity...)
 *   is that type, imported from kop/api;
 * - scalars map to string, boolean, int/int32/int64 (kop/api) and number, enums of strings to
 *   unions of literals, and every other keyword to its controller-gen marker;
 * - list items and map values that need a doc or a marker no `items:` marker carries become a
 *   named alias carrying it.
 *
 * A keyword no marker expresses (oneOf, allOf, not, anyOf other than int-or-string's...) stops
 * the import naming its path, unless `rawSchema` is set: then the nearest enclosing field keeps
 * its subtree verbatim with `+kop:schema=<JSON>`, and its TypeScript type is derived leniently.
 */
import { normaliseDoc } from '../schema/index.js';
import {
  type CrdVersion,
  type CustomResourceDefinition,
  type JSONSchemaProps,
  type ValidationRule,
  isMarkerLine,
  TYPE_META_PROPERTIES,
} from '../schema/index.js';
import type { JSONValue } from '../base/index.js';
import { pluralOfKind } from '../project/index.js';
import type { CoreTypeIndex } from './core-type-index.js';
import { canonicalJson } from './canonical-json.js';
import type { FieldDeclaration, KindTypes, TypeDeclaration } from './type-declarations.js';

export interface SchemaToTypesOptions {
  /** Keep subtrees that no marker expresses as verbatim schema (`+kop:schema`) instead of stopping. */
  rawSchema: boolean;
  /**
   * The CRD must come back exactly (an owned import): descriptions kop cannot write as doc
   * comments and TypeMeta fields other than kop's stop the import. For an external import
   * descriptions are written as closely as a doc comment can hold them.
   */
  exact: boolean;
}

/** A keyword or value with no kop marker, at a path of the version's schema. */
export class UnsupportedSchemaError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
    /** True when +kop:schema (--raw-schema) can keep the subtree. */
    readonly rawable = true,
  ) {
    super(`${path || '.'}: ${problem}`);
  }
}

/** A marker line, with its `items:` form for the validation markers that have one. */
interface MarkerLine {
  text: string;
  /** Only a field may carry it (defaults, nullable, examples, Schemaless). */
  fieldOnly: boolean;
  /** The same constraint on the items of a list held by a field, when controller-gen has that form. */
  items?: string;
}

/** What a schema node becomes where it is used. */
interface Emitted {
  type: string;
  markers: MarkerLine[];
  doc: string | undefined;
  /** The interface written for this node, which can carry its doc and markers itself. */
  declaration?: TypeDeclaration;
}

/** Keywords a node may have that some marker or TypeScript form expresses. */
const SUPPORTED_KEYS = new Set([
  'type',
  'format',
  'description',
  'default',
  'example',
  'enum',
  'nullable',
  'title',
  'externalDocs',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'properties',
  'additionalProperties',
  'anyOf',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The declarations of one version of `crd`. */
export function versionTypes(
  crd: CustomResourceDefinition,
  version: CrdVersion,
  core: CoreTypeIndex,
  options: SchemaToTypesOptions,
): KindTypes {
  return new TypesWriter(crd, core, options).kindTypes(version);
}

class TypesWriter {
  private readonly declarations: TypeDeclaration[] = [];
  private readonly names = new Set<string>();
  private readonly imports = new Map<string, string>();
  private usesFloats = false;
  private readonly verbatimPaths: string[] = [];
  /** Inside a subtree kept verbatim: types only, no markers, nothing refused. */
  private lenient = false;

  constructor(
    private readonly crd: CustomResourceDefinition,
    private readonly core: CoreTypeIndex,
    private readonly options: SchemaToTypesOptions,
  ) {}

  kindTypes(version: CrdVersion): KindTypes {
    const kind = this.crd.spec.names.kind;
    const root = version.schema.openAPIV3Schema;
    this.names.add(kind);
    this.names.add(`${kind}List`);
    const objectMeta = this.useCore('ObjectMeta');
    const listMeta = this.useCore('ListMeta');
    if (root.type !== 'object')
      throw new UnsupportedSchemaError('', 'the root of the schema is not type: object', false);
    this.checkKeys(root, '');
    const properties = root.properties ?? {};
    if (this.options.exact) {
      for (const name of ['apiVersion', 'kind'] as const) {
        if (canonicalJson(properties[name]) !== canonicalJson(TYPE_META_PROPERTIES[name])) {
          throw new UnsupportedSchemaError(
            `.${name}`,
            `differs from the ${name} field kop (and controller-gen) always writes, so the CRD cannot come back exactly`,
            false,
          );
        }
      }
      if (canonicalJson(properties.metadata) !== canonicalJson({ type: 'object' })) {
        throw new UnsupportedSchemaError(
          '.metadata',
          'is not `type: object`, which is all kop (and controller-gen) writes for metadata, since the apiserver owns its schema',
          false,
        );
      }
    }
    const required = new Set(root.required ?? []);
    for (const name of ['apiVersion', 'kind']) {
      if (required.has(name))
        throw new UnsupportedSchemaError(`.${name}`, 'is required at the root, which kop never writes', false);
    }
    const fields: FieldDeclaration[] = [
      { name: 'apiVersion', type: 'string', optional: true, doc: '', markers: [] },
      { name: 'kind', type: 'string', optional: true, doc: '', markers: [] },
      { name: 'metadata', type: objectMeta, optional: !required.has('metadata'), doc: '', markers: [] },
    ];
    const rootDeclaration: TypeDeclaration = {
      name: kind,
      kind: 'interface',
      doc: this.doc(root.description, ''),
      markers: [],
      fields,
    };
    const listDeclaration: TypeDeclaration = {
      name: `${kind}List`,
      kind: 'interface',
      doc: `${kind}List is a list of ${kind}.`,
      markers: ['+kubebuilder:object:root=true'],
      fields: [
        { name: 'apiVersion', type: 'string', optional: true, doc: '', markers: [] },
        { name: 'kind', type: 'string', optional: true, doc: '', markers: [] },
        { name: 'metadata', type: listMeta, optional: true, doc: '', markers: [] },
        { name: 'items', type: `${kind}[]`, optional: false, doc: '', markers: [] },
      ],
    };
    this.declarations.push(rootDeclaration, listDeclaration);
    for (const [name, child] of Object.entries(properties)) {
      if (name === 'apiVersion' || name === 'kind' || name === 'metadata') continue;
      fields.push(this.field(name, child, `${kind}${pascal(name)}`, `.${name}`, required.has(name)));
    }
    for (const name of required)
      if (!properties[name])
        throw new UnsupportedSchemaError('', `required lists "${name}", which is not a property`, false);
    const {
      type: _type,
      description: _description,
      properties: _properties,
      required: _required,
      ...constraints
    } = root;
    const rootMarkers = this.commonMarkers(constraints, '');
    const fieldOnly = rootMarkers.find((m) => m.fieldOnly);
    if (fieldOnly)
      throw new UnsupportedSchemaError(
        '',
        `${fieldOnly.text.split(/[=:]/)[0]} at the root of the schema has no marker there`,
        false,
      );
    rootDeclaration.markers = [...this.kindMarkers(version), ...rootMarkers.map((m) => m.text)];
    return {
      kind,
      declarations: this.declarations,
      imports: this.imports,
      usesFloats: this.usesFloats,
      verbatimPaths: this.verbatimPaths,
    };
  }

  /** The markers of the root type: the kind, its resource names, subresources, columns and version flags. */
  private kindMarkers(version: CrdVersion): string[] {
    const { names, scope } = this.crd.spec;
    const markers = ['+kubebuilder:object:root=true'];
    const resource: string[] = [];
    if (names.plural !== pluralOfKind(names.kind)) resource.push(`path=${names.plural}`);
    if (names.singular !== names.kind.toLowerCase()) resource.push(`singular=${names.singular}`);
    if (scope === 'Cluster') resource.push('scope=Cluster');
    if (names.shortNames) resource.push(`shortName=${names.shortNames.map(listItem).join(';')}`);
    if (names.categories) resource.push(`categories=${names.categories.map(listItem).join(';')}`);
    if (resource.length > 0) markers.push(`+kubebuilder:resource:${resource.join(',')}`);
    if (names.listKind !== `${names.kind}List`)
      throw new UnsupportedSchemaError(
        '',
        `spec.names.listKind "${names.listKind}" is not ${names.kind}List, the only list kind kop writes`,
        false,
      );
    if (version.subresources?.status) markers.push('+kubebuilder:subresource:status');
    const scale = version.subresources?.scale;
    if (scale) {
      const args = [`specpath=${quote(scale.specReplicasPath)}`, `statuspath=${quote(scale.statusReplicasPath)}`];
      if (scale.labelSelectorPath !== undefined) args.push(`selectorpath=${quote(scale.labelSelectorPath)}`);
      markers.push(`+kubebuilder:subresource:scale:${args.join(',')}`);
    }
    for (const column of version.additionalPrinterColumns ?? []) {
      const args = [`name=${quote(column.name)}`, `type=${quote(column.type)}`, `JSONPath=${quote(column.jsonPath)}`];
      if (column.description !== undefined) args.push(`description=${quote(column.description)}`);
      if (column.format !== undefined) args.push(`format=${quote(column.format)}`);
      if (column.priority !== undefined) args.push(`priority=${column.priority}`);
      markers.push(`+kubebuilder:printcolumn:${args.join(',')}`);
    }
    for (const field of version.selectableFields ?? [])
      markers.push(`+kubebuilder:selectablefield:JSONPath=${quote(field.jsonPath)}`);
    if (this.crd.spec.versions.length > 1 && version.storage) markers.push('+kubebuilder:storageversion');
    if (!version.served) markers.push('+kubebuilder:unservedversion');
    if (version.deprecated) {
      markers.push(
        version.deprecationWarning !== undefined
          ? `+kubebuilder:deprecatedversion:warning=${quote(version.deprecationWarning)}`
          : '+kubebuilder:deprecatedversion',
      );
    }
    const { annotations, labels } = this.crd.metadata;
    const metadata: string[] = [];
    if (annotations)
      metadata.push(
        `annotations=${Object.entries(annotations)
          .map(([k, v]) => JSON.stringify(`${k}=${v}`).replaceAll('*/', '*\\/'))
          .join(';')}`,
      );
    if (labels)
      metadata.push(
        `labels=${Object.entries(labels)
          .map(([k, v]) => JSON.stringify(`${k}=${v}`).replaceAll('*/', '*\\/'))
          .join(';')}`,
      );
    if (metadata.length > 0) markers.push(`+kubebuilder:metadata:${metadata.join(',')}`);
    return markers;
  }

  /** A property: its type, with the node's doc and markers on the field. */
  private field(name: string, node: JSONSchemaProps, hint: string, path: string, required: boolean): FieldDeclaration {
    let emitted: Emitted;
    try {
      emitted = this.emit(node, hint, path);
    } catch (error) {
      if (!(error instanceof UnsupportedSchemaError) || !this.options.rawSchema || !error.rawable || this.lenient)
        throw error;
      return this.verbatimField(name, node, hint, path, required);
    }
    return {
      name,
      type: emitted.type,
      optional: !required,
      doc: emitted.doc ?? '',
      markers: emitted.markers.map((m) => m.text),
    };
  }

  /** A property kept verbatim with +kop:schema; its TypeScript type is derived without markers. */
  private verbatimField(
    name: string,
    node: JSONSchemaProps,
    hint: string,
    path: string,
    required: boolean,
  ): FieldDeclaration {
    this.verbatimPaths.push(path);
    const { description, ...rest } = node;
    // The description stays a doc comment when one can hold it exactly.
    const docFits = description !== undefined && describable(description);
    const schema = docFits ? rest : node;
    this.lenient = true;
    let type: string;
    try {
      type = this.emit(node, hint, path).type;
    } catch {
      type = this.useCore('JSONValue');
    } finally {
      this.lenient = false;
    }
    return {
      name,
      type,
      optional: !required,
      doc: docFits ? description : '',
      markers: [`+kop:schema=${json(schema)}`],
    };
  }

  /** The TypeScript type of a node and the doc and markers its holder must carry. */
  private emit(node: JSONSchemaProps, hint: string, path: string): Emitted {
    if (!this.lenient) this.checkKeys(node, path);
    const doc = node.description === undefined ? undefined : this.doc(node.description, path);
    const match = this.core.match(node);
    if (match) {
      const layerMarkers = this.lenient ? [] : this.commonMarkers(match.layer as JSONSchemaProps, path);
      return {
        type: this.useCore(match.name),
        markers: layerMarkers,
        doc: node.description === match.description ? undefined : doc,
      };
    }
    const markers = this.lenient ? [] : this.commonMarkers(node, path);
    const add = (...lines: MarkerLine[]) => {
      if (!this.lenient) markers.push(...lines);
    };
    if (node['x-kubernetes-int-or-string'] === true && node.type === undefined) {
      if (isIntOrStringAnyOf(node.anyOf)) {
        for (const key of ['pattern', 'maxLength', 'minLength', 'enum', 'format', 'maximum', 'minimum']) {
          if (node[key as keyof JSONSchemaProps] !== undefined && !this.lenient) {
            throw new UnsupportedSchemaError(
              path,
              `"${key}" on an int-or-string value has no marker (only Quantity's own pattern is kop/api's Quantity)`,
            );
          }
        }
        return { type: this.useCore('IntOrString'), markers, doc };
      }
      add(schemaless(), validation('XIntOrString', ''));
      return { type: this.useCore('IntOrString'), markers, doc };
    }
    switch (node.type) {
      case 'string': {
        const values = node.enum;
        if (values !== undefined && values.length > 0 && values.every((v) => typeof v === 'string')) {
          return { type: values.map((v) => stringLiteral(v as string)).join(' | '), markers, doc };
        }
        return { type: 'string', markers, doc };
      }
      case 'boolean':
        return { type: 'boolean', markers, doc };
      case 'integer': {
        const format = node.format;
        if (format === 'int32' || format === 'int64')
          return {
            type: this.useCore(format),
            markers: markers.filter((m) => !m.text.startsWith('+kubebuilder:validation:Format=')),
            doc,
          };
        return { type: this.useCore('int'), markers, doc };
      }
      case 'number':
        this.usesFloats = true;
        return { type: 'number', markers, doc };
      case 'array': {
        if (!node.items) throw new UnsupportedSchemaError(path, 'an array without items');
        const items = this.listItems(node.items, hint, `${path}[*]`);
        add(...items.holderMarkers);
        return { type: arrayOf(items.type), markers, doc };
      }
      case 'object':
        return this.object(node, hint, path, markers, doc);
      case undefined: {
        // kop/api's JSON is `x-kubernetes-preserve-unknown-fields` alone; the node's other keywords layer over it.
        if (node['x-kubernetes-preserve-unknown-fields'] === true) return { type: this.useCore('JSON'), markers, doc };
        if (this.lenient) return { type: this.useCore('JSONValue'), markers, doc };
        add(schemaless());
        return { type: this.useCore('JSONValue'), markers, doc };
      }
      default:
        throw new UnsupportedSchemaError(path, `type "${node.type}" is not a schema type`, false);
    }
  }

  private object(
    node: JSONSchemaProps,
    hint: string,
    path: string,
    markers: MarkerLine[],
    doc: string | undefined,
  ): Emitted {
    const properties = node.properties;
    if (properties !== undefined) {
      if (Object.keys(properties).length === 0 && !this.lenient) {
        throw new UnsupportedSchemaError(path, 'an empty `properties: {}`, which kop writes as a bare `type: object`');
      }
      const name = this.declare(hint);
      const declaration: TypeDeclaration = { name, kind: 'interface', doc: '', markers: [], fields: [] };
      this.declarations.push(declaration);
      const required = new Set(node.required ?? []);
      for (const key of required) {
        if (!(key in properties) && !this.lenient)
          throw new UnsupportedSchemaError(path, `required lists "${key}", which is not a property`);
      }
      for (const [property, child] of Object.entries(properties)) {
        declaration.fields.push(
          this.field(property, child, `${name}${pascal(property)}`, `${path}.${property}`, required.has(property)),
        );
      }
      return { type: name, markers, doc, declaration };
    }
    const values = node.additionalProperties;
    if (typeof values === 'object') {
      const value = this.mapValues(values, hint, `${path}[*]`);
      return { type: `Record<string, ${value}>`, markers, doc };
    }
    if (values !== undefined && !this.lenient)
      throw new UnsupportedSchemaError(path, `additionalProperties: ${String(values)} has no marker`);
    if (hint.endsWith('Metadata') && path.endsWith('.metadata')) {
      // An embedded object's metadata: kop/api's ObjectMeta has exactly this schema.
      return { type: this.useCore('ObjectMeta'), markers, doc };
    }
    return { type: '{}', markers, doc };
  }

  /** The type of a list's items, with the markers the list's holder carries for them (`items:` markers). */
  private listItems(node: JSONSchemaProps, hint: string, path: string): { type: string; holderMarkers: MarkerLine[] } {
    const emitted = this.emit(node, hint, path);
    if (this.lenient) return { type: emitted.type, holderMarkers: [] };
    if (emitted.declaration) {
      this.attach(emitted.declaration, emitted, path);
      return { type: emitted.type, holderMarkers: [] };
    }
    if (emitted.doc === undefined && emitted.markers.every((m) => m.items !== undefined)) {
      return { type: emitted.type, holderMarkers: emitted.markers.map((m) => ({ text: m.items!, fieldOnly: false })) };
    }
    return { type: this.alias(hint, emitted, path), holderMarkers: [] };
  }

  /** The type of a map's values: inline when it needs no doc or marker, else named. */
  private mapValues(node: JSONSchemaProps, hint: string, path: string): string {
    const emitted = this.emit(node, `${hint}Value`, path);
    if (this.lenient) return emitted.type;
    if (emitted.declaration) {
      this.attach(emitted.declaration, emitted, path);
      return emitted.type;
    }
    if (emitted.doc === undefined && emitted.markers.length === 0) return emitted.type;
    return this.alias(`${hint}Value`, emitted, path);
  }

  /** Puts a list item's or map value's doc and markers on the interface written for it. */
  private attach(declaration: TypeDeclaration, emitted: Emitted, path: string): void {
    this.refuseFieldOnly(emitted, path);
    declaration.doc = emitted.doc ?? '';
    declaration.markers = emitted.markers.map((m) => m.text);
  }

  /** A named alias that carries a list item's or map value's doc and markers. */
  private alias(hint: string, emitted: Emitted, path: string): string {
    this.refuseFieldOnly(emitted, path);
    const name = this.declare(hint);
    this.declarations.push({
      name,
      kind: 'alias',
      aliasOf: emitted.type,
      doc: emitted.doc ?? '',
      markers: emitted.markers.map((m) => m.text),
      fields: [],
    });
    return name;
  }

  private refuseFieldOnly(emitted: Emitted, path: string): void {
    const fieldOnly = emitted.markers.find((m) => m.fieldOnly);
    if (fieldOnly)
      throw new UnsupportedSchemaError(
        path,
        `${fieldOnly.text.split(/[=:]/)[0]} on a list item or map value: controller-gen has no marker for it there`,
      );
  }

  /** Markers for a node's own keywords (everything but its type, structure and description). */
  private commonMarkers(node: JSONSchemaProps, path: string): MarkerLine[] {
    const markers: MarkerLine[] = [];
    const named = (name: string, arg: string, fieldOnly = false) => markers.push({ text: `+${name}${arg}`, fieldOnly });
    if (node.nullable === true) named('nullable', '', true);
    else if (node.nullable === false)
      throw new UnsupportedSchemaError(path, 'nullable: false written out has no marker (kop leaves it out)');
    if (node.default !== undefined) named('default', `=${json(node.default)}`, true);
    if (node.example !== undefined) named('kubebuilder:example', `=${anyValue(node.example, path)}`, true);
    if (node.title !== undefined) named('kubebuilder:title', `=${quote(node.title)}`);
    if (node.externalDocs !== undefined) {
      const args = [`url=${quote(node.externalDocs.url ?? '')}`];
      if (node.externalDocs.description !== undefined) args.push(`description=${quote(node.externalDocs.description)}`);
      named('kubebuilder:externalDocs', `:${args.join(',')}`);
    }
    if (node.format !== undefined) markers.push(validation('Format', `=${quote(node.format)}`));
    if (
      node.enum !== undefined &&
      !(node.type === 'string' && node.enum.length > 0 && node.enum.every((v) => typeof v === 'string'))
    ) {
      if (node.enum.length === 0) throw new UnsupportedSchemaError(path, 'an empty enum has no marker');
      markers.push(validation('Enum', `=${node.enum.map((v) => enumItem(v, path)).join(';')}`));
    }
    for (const [key, marker] of [
      ['maximum', 'Maximum'],
      ['minimum', 'Minimum'],
      ['multipleOf', 'MultipleOf'],
    ] as const) {
      if (node[key] !== undefined) markers.push(validation(marker, `=${node[key]}`));
    }
    for (const [key, marker] of [
      ['exclusiveMaximum', 'ExclusiveMaximum'],
      ['exclusiveMinimum', 'ExclusiveMinimum'],
      ['uniqueItems', 'UniqueItems'],
    ] as const) {
      if (node[key] === true) markers.push(validation(marker, '=true'));
      else if (node[key] === false)
        throw new UnsupportedSchemaError(path, `${key}: false written out has no marker (kop leaves it out)`);
    }
    for (const [key, marker] of [
      ['maxLength', 'MaxLength'],
      ['minLength', 'MinLength'],
      ['maxItems', 'MaxItems'],
      ['minItems', 'MinItems'],
      ['maxProperties', 'MaxProperties'],
      ['minProperties', 'MinProperties'],
    ] as const) {
      if (node[key] !== undefined) markers.push(validation(marker, `=${node[key]}`));
    }
    if (node.pattern !== undefined) markers.push(validation('Pattern', `=${quote(node.pattern, true)}`));
    // Core types that match consume these; otherwise they are markers of the node.
    if (node['x-kubernetes-preserve-unknown-fields'] === true && node.type !== undefined)
      markers.push(validation('XPreserveUnknownFields', ''));
    else if (node['x-kubernetes-preserve-unknown-fields'] === false)
      throw new UnsupportedSchemaError(path, 'x-kubernetes-preserve-unknown-fields: false written out has no marker');
    if (node['x-kubernetes-embedded-resource'] === true) markers.push(validation('XEmbeddedResource', ''));
    else if (node['x-kubernetes-embedded-resource'] === false)
      throw new UnsupportedSchemaError(path, 'x-kubernetes-embedded-resource: false written out has no marker');
    if (node['x-kubernetes-int-or-string'] === true && node.type !== undefined)
      throw new UnsupportedSchemaError(path, 'x-kubernetes-int-or-string with a type is not structural', false);
    if (node['x-kubernetes-list-type'] !== undefined) named('listType', `=${quote(node['x-kubernetes-list-type'])}`);
    for (const key of node['x-kubernetes-list-map-keys'] ?? []) named('listMapKey', `=${quote(key)}`);
    if (node['x-kubernetes-map-type'] !== undefined)
      named(node.properties ? 'structType' : 'mapType', `=${quote(node['x-kubernetes-map-type'])}`);
    for (const rule of node['x-kubernetes-validations'] ?? []) markers.push(this.celMarker(rule, path));
    return markers;
  }

  private celMarker(rule: ValidationRule, path = ''): MarkerLine {
    const known = new Set(['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf']);
    const unknown = Object.keys(rule).find((k) => !known.has(k));
    if (unknown !== undefined)
      throw new UnsupportedSchemaError(path, `a CEL rule has "${unknown}", which XValidation does not carry`);
    const args = [`rule=${quote(rule.rule)}`];
    for (const key of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) {
      const value = rule[key];
      if (value === undefined) continue;
      if (value === '')
        throw new UnsupportedSchemaError(path, `a CEL rule's ${key} is "" written out, which kop leaves out`);
      args.push(`${key}=${quote(value)}`);
    }
    if (rule.optionalOldSelf === true) args.push('optionalOldSelf=true');
    else if (rule.optionalOldSelf === false)
      throw new UnsupportedSchemaError(path, "a CEL rule's optionalOldSelf: false written out, which kop leaves out");
    return validation('XValidation', `:${args.join(',')}`);
  }

  private checkKeys(node: JSONSchemaProps, path: string): void {
    for (const key of Object.keys(node)) {
      if (!SUPPORTED_KEYS.has(key)) throw new UnsupportedSchemaError(path, `"${key}" has no kop marker`);
    }
    if (node.anyOf !== undefined && !(node['x-kubernetes-int-or-string'] === true && isIntOrStringAnyOf(node.anyOf))) {
      throw new UnsupportedSchemaError(path, '"anyOf" other than int-or-string\'s has no kop marker');
    }
  }

  /** A description as a doc comment; one a doc comment cannot hold exactly stops an exact import. */
  private doc(description: string | undefined, path: string): string {
    if (description === undefined) return '';
    if (describable(description)) return description;
    if (this.options.exact && !this.lenient) {
      throw new UnsupportedSchemaError(
        path,
        'its description has trailing spaces, blank lines at an end or in a row, a carriage return, or a line starting with "+", which a doc comment cannot hold',
      );
    }
    // External imports: as close as a doc comment gets.
    return normaliseDoc(
      description
        .replaceAll('\r', '')
        .split('\n')
        .map((line) => (isMarkerLine(line) ? `\\${line.trim()}` : line)),
    );
  }

  /** The local name of a kop/api type, imported under another name when a declaration has its own. */
  private useCore(name: string): string {
    const existing = this.imports.get(name);
    if (existing !== undefined) return existing;
    const local = this.names.has(name) ? this.unique(`K8s${name}`) : name;
    this.names.add(local);
    this.imports.set(name, local);
    return local;
  }

  private declare(hint: string): string {
    const name = this.unique(hint);
    this.names.add(name);
    return name;
  }

  private unique(hint: string): string {
    if (!this.names.has(hint)) return hint;
    for (let n = 2; ; n++) if (!this.names.has(`${hint}${n}`)) return `${hint}${n}`;
  }
}

/** A validation marker, with its `items:` form. */
function validation(name: string, arg: string): MarkerLine {
  return {
    text: `+kubebuilder:validation:${name}${arg}`,
    fieldOnly: false,
    items: `+kubebuilder:validation:items:${name}${arg}`,
  };
}

function schemaless(): MarkerLine {
  return { text: '+kubebuilder:validation:Schemaless', fieldOnly: true };
}

/** True when a doc comment gives back exactly this description. */
export function describable(description: string): boolean {
  if (description.includes('\r')) return false;
  const lines = description.split('\n');
  if (lines.some((line) => isMarkerLine(line))) return false;
  return normaliseDoc(lines) === description;
}

function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  return JSON.stringify(anyOf) === JSON.stringify([{ type: 'integer' }, { type: 'string' }]);
}

/** `T[]`, parenthesised for unions. */
function arrayOf(type: string): string {
  return type.includes(' | ') ? `(${type})[]` : `${type}[]`;
}

/** A property name as a PascalCase part of a type name. */
export function pascal(name: string): string {
  const parts = name.split(/[^A-Za-z0-9]+/).filter((p) => p !== '');
  const joined = parts.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
  if (joined === '') return 'Field';
  return /^[0-9]/.test(joined) ? `X${joined}` : joined;
}

/** A property key as written in an interface. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/** A TypeScript string literal in single quotes (JSON's escapes are TypeScript's too). */
export function stringLiteral(value: string): string {
  return `'${JSON.stringify(value).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
}

/**
 * A string argument of a marker: plain when the marker parser reads it back unchanged, else
 * quoted — in backticks when it holds a double quote (no escapes inside), else as JSON. A
 * star-slash, which would end the doc comment, is written `*\\/` inside JSON quotes; so is a value
 * with a star, a backslash and a slash in a row (a regular expression's escaped slash), which a
 * doc comment would read as a star-slash.
 */
export function quote(value: string, preferBackticks = false): string {
  const plain = /^[A-Za-z0-9_./-]+$/.test(value) && !value.includes('*/');
  if (plain && !preferBackticks) return value;
  if (
    (preferBackticks || value.includes('"')) &&
    !value.includes('`') &&
    !value.includes('\n') &&
    !value.includes('*/') &&
    !value.includes('*\\/')
  )
    return `\`${value}\``;
  return JSON.stringify(value).replaceAll('*/', '*\\/');
}

/** One item of a `;`-separated string list (shortName, categories). */
function listItem(value: string): string {
  return /^[A-Za-z0-9_.-]+$/.test(value) ? value : JSON.stringify(value);
}

/** JSON text for `+default=` and `+kop:schema=`, safe inside a doc comment. */
function json(value: unknown): string {
  return JSON.stringify(value).replaceAll('*/', '*\\/');
}

/** An Enum marker's item: strings always quoted, so that "1" stays a string. */
function enumItem(value: JSONValue, path: string): string {
  if (typeof value === 'string') return JSON.stringify(value).replaceAll('*/', '*\\/');
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new UnsupportedSchemaError(path, `the enum value ${JSON.stringify(value)} has no Enum marker form`);
}

/** A value in the syntax of controller-gen's untyped marker arguments (`+kubebuilder:example`). */
function anyValue(value: JSONValue, path: string): string {
  if (typeof value === 'string') return JSON.stringify(value).replaceAll('*/', '*\\/');
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.length > 0) return `{${value.map((v) => anyValue(v, path)).join(',')}}`;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${anyValue(v, path)}`)
      .join(',')}}`;
  }
  throw new UnsupportedSchemaError(path, `the example ${JSON.stringify(value)} has no marker form`);
}
