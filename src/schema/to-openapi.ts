/**
 * Stage 3: the API model to OpenAPI v3, with controller-gen's mapping rules and markers.
 * Named types are inlined where they are used (`inlineReference`), because structural
 * schemas allow no `$ref`; a field's own doc and markers are layered over the schema of
 * its type the way controller-gen flattens (the field's description wins, the field's
 * CEL rules come before the type's).
 */
import { coreTypeSchema } from './core-types.js';
import { embeddedObjectMetaSchema, withEmbeddedObjectMeta } from './embedded-object-meta.js';
import {
  FloatTypeError,
  MarkerPlacementError,
  RecursiveTypeError,
  UnresolvedTypeError,
  MarkerSyntaxError,
  SchemaError,
  SchemaErrors,
  UnsupportedUnionError,
  UntypedValueError,
  type SourceLocation,
} from './errors.js';
import { cloneSchema, type JSONSchemaProps, type ValidationRule } from './json-schema.js';
import { crdMarker, findMarker, type Marker } from './markers.js';
import { RULE_ORDER, type Presence, type RuleGroup, type SchemaApplication } from './markers/definition.js';
import {
  allFields,
  WELL_KNOWN_MODULE,
  type ApiKindVersion,
  type ApiModel,
  type FieldModel,
  type TypeDeclaration,
  type TypeRef,
} from './model.js';

export interface OpenApiOptions {
  /**
   * Map TypeScript `number` to `type: number`. Off by default, like controller-gen's
   * `crd:allowDangerousTypes`: floats do not round-trip across languages, so kop asks for
   * int32/int64 unless the user opts in.
   */
  allowDangerousTypes?: boolean;
  /**
   * Give object metadata embedded below the root (PodTemplateSpec's, JobTemplateSpec's, a
   * `metadata: ObjectMeta` of the user's types) its name, namespace, labels, annotations and
   * finalizers, like controller-gen's `crd:generateEmbeddedObjectMeta`. Off by default, as there.
   */
  generateEmbeddedObjectMeta?: boolean;
}

/** Descriptions of the TypeMeta fields every kind has, as controller-gen writes them. */
export const TYPE_META_PROPERTIES: Record<'apiVersion' | 'kind', JSONSchemaProps> = {
  apiVersion: {
    description:
      'APIVersion defines the versioned schema of this representation of an object.\n' +
      'Servers should convert recognized schemas to the latest internal value, and\n' +
      'may reject unrecognized values.\n' +
      'More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
    type: 'string',
  },
  kind: {
    description:
      'Kind is a string value representing the REST resource this object represents.\n' +
      'Servers may infer this from the endpoint the client submits requests to.\n' +
      'Cannot be updated.\n' +
      'In CamelCase.\n' +
      'More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
    type: 'string',
  },
};

/** Where each schema node came from, for structural-check messages. */
export type SchemaOrigins = WeakMap<object, SourceLocation>;

interface Site {
  subject: string;
  location: SourceLocation;
}

/** Converts kinds of one model to OpenAPI; caches each declaration's schema. */
export class OpenApiConverter {
  readonly origins: SchemaOrigins = new WeakMap();
  /** Problems in fields, kept so that one run reports every field's problem (see buildCrds). */
  readonly problems: SchemaError[] = [];
  private readonly cache = new Map<TypeDeclaration, JSONSchemaProps>();
  private readonly stack: TypeDeclaration[] = [];
  private readonly optionalByFile = new Map<string, boolean>();

  constructor(
    model: ApiModel,
    private readonly options: OpenApiOptions = {},
  ) {
    for (const pkg of model.packages) for (const file of pkg.files) this.optionalByFile.set(file, pkg.defaultOptional);
  }

  /** The `openAPIV3Schema` of one version of a kind. */
  kindSchema(kindVersion: ApiKindVersion): JSONSchemaProps {
    const problemsBefore = this.problems.length;
    const declaration = kindVersion.declaration;
    const site = { subject: declaration.name, location: declaration.location };
    const properties: Record<string, JSONSchemaProps> = {
      apiVersion: cloneSchema(TYPE_META_PROPERTIES.apiVersion),
      kind: cloneSchema(TYPE_META_PROPERTIES.kind),
      metadata: { type: 'object' },
    };
    const rest = kindVersion.fields.filter(
      (f) => f.name !== 'apiVersion' && f.name !== 'kind' && f.name !== 'metadata',
    );
    this.stack.push(declaration);
    const body = this.structSchema(rest, declaration.file, declaration.name);
    this.stack.pop();
    const schema: JSONSchemaProps = { ...body, properties: { ...properties, ...body.properties } };
    // `metadata` written without `?` (Go's ObjectMeta without omitempty) is required, as controller-gen writes it.
    const metadata = kindVersion.fields.find((f) => f.name === 'metadata');
    if (metadata && isRequired(metadata, this.optionalByFile.get(declaration.file) ?? false))
      schema.required = [...(schema.required ?? []), 'metadata'].sort();
    if (declaration.doc) schema.description = declaration.doc;
    this.applyMarkers(schema, schema, declaration.markers, 'type', site);
    this.origins.set(schema, declaration.location);
    // Every field was tried, so the error lists all of this kind's problems, not only the first.
    const problems = this.problems.slice(problemsBefore);
    if (problems.length === 1) throw problems[0];
    if (problems.length > 1) throw new SchemaErrors(problems);
    return schema;
  }

  /** The schema of a type as written at `site` (a field or alias). */
  typeSchema(ref: TypeRef, site: Site): JSONSchemaProps {
    switch (ref.kind) {
      case 'string':
        return { type: 'string' };
      case 'boolean':
        return { type: 'boolean' };
      case 'number':
        if (this.options.allowDangerousTypes) return { type: 'number' };
        throw new FloatTypeError(
          site.location,
          site.subject,
          `type "number" is a float, which Kubernetes APIs avoid (values do not round-trip across languages)`,
          `use int32 or int64 from ${WELL_KNOWN_MODULE} for integers, a string or Quantity for decimals, or run \`kop edit --allow-dangerous-types\` to map number to "type: number" in the project's CRDs`,
        );
      case 'wellKnown': {
        const schema = coreTypeSchema(ref.name);
        if (!schema) {
          throw new UnresolvedTypeError(
            site.location,
            site.subject,
            `${WELL_KNOWN_MODULE} has no schema for "${ref.name}"`,
            `use a type ${WELL_KNOWN_MODULE} exports (int32, Quantity, PodTemplateSpec, ...) or declare the type in your API files`,
          );
        }
        if (!this.options.generateEmbeddedObjectMeta) return schema;
        return ref.name === 'ObjectMeta' ? embeddedObjectMetaSchema(schema) : withEmbeddedObjectMeta(schema);
      }
      case 'enum':
        return enumSchema(ref.values, ref.text, site);
      case 'array':
        return { type: 'array', items: this.typeSchema(ref.items, site) };
      case 'map':
        return { type: 'object', additionalProperties: this.typeSchema(ref.values, site) };
      case 'reference':
        return this.inlineReference(ref.target, site);
      case 'object':
        return this.structSchema(ref.fields, site.location.file, site.subject);
      case 'intersection': {
        const fields = ref.members.flatMap((member) => this.fieldsOf(member, site));
        return this.structSchema(fields, site.location.file, site.subject);
      }
      case 'union':
        throw new UnsupportedUnionError(
          site.location,
          site.subject,
          `type "${ref.text}" is a union, which a structural schema cannot express`,
          `use IntOrString from ${WELL_KNOWN_MODULE} for number | string, a union of string literals for an enum, or one object with optional fields and +kubebuilder:validation:ExactlyOneOf=<a>;<b> (or an XValidation rule)`,
        );
      case 'untyped':
        throw new UntypedValueError(
          site.location,
          site.subject,
          `type "${ref.text}" says nothing about the value`,
          `use JSON (any JSON value) or RawExtension (an embedded object) from ${WELL_KNOWN_MODULE}, which keep unknown fields`,
        );
      case 'unresolved':
        throw new UnresolvedTypeError(
          site.location,
          site.subject,
          `cannot resolve type "${ref.text}": ${ref.reason}`,
          ref.fix ??
            `declare it in the API files, import it from a relative file, or import it from ${WELL_KNOWN_MODULE}`,
        );
    }
  }

  private fieldsOf(ref: TypeRef, site: Site): FieldModel[] {
    if (ref.kind === 'reference') {
      if (this.stack.includes(ref.target)) this.recursive(ref.target, site);
      return allFields(ref.target);
    }
    if (ref.kind === 'object') return ref.fields;
    if (ref.kind === 'intersection') return ref.members.flatMap((m) => this.fieldsOf(m, site));
    throw new UnsupportedUnionError(
      site.location,
      site.subject,
      `"${ref.text}" in an intersection or extends clause is not an object type`,
      'extend or intersect only interfaces and object types',
    );
  }

  private recursive(target: TypeDeclaration, site: Site): never {
    const cycle = [...this.stack.slice(this.stack.indexOf(target)), target].map((d) => d.name).join(' -> ');
    throw new RecursiveTypeError(
      site.location,
      site.subject,
      `type ${target.name} contains itself (${cycle}); structural schemas are finite`,
      'break the cycle (e.g. refer to children by name), or use JSON from kop/api with +kubebuilder:validation:XPreserveUnknownFields for free-form nesting',
    );
  }

  /** Inlines a named type: its schema, description and type-level markers (cached per declaration). */
  inlineReference(target: TypeDeclaration, site: Site): JSONSchemaProps {
    if (this.stack.includes(target)) this.recursive(target, site);
    const cached = this.cache.get(target);
    if (cached) return this.copy(cached);
    this.stack.push(target);
    const ownSite = { subject: target.name, location: target.location };
    let schema: JSONSchemaProps;
    const verbatim = this.verbatimSchema(target.markers, target.doc, ownSite);
    if (verbatim) {
      schema = verbatim;
    } else if (target.declarationKind === 'interface' && !target.aliasOf) {
      schema = this.structSchema(allFields(target), target.file, target.name);
    } else {
      const alias = target.aliasOf!;
      schema =
        alias.kind === 'object' || alias.kind === 'intersection'
          ? this.structSchema(allFields(target), target.file, target.name)
          : this.typeSchema(alias, ownSite);
    }
    this.stack.pop();
    if (verbatim) {
      // nothing to layer: the marker gave the whole schema
    } else if (target.aliasOf && isNamedType(target.aliasOf)) {
      // `type Derived = Base`: like Go's `type Derived Base`, a $ref with Derived's doc and
      // markers beside it, which controller-gen flattens as it flattens a field over its type.
      const layer: JSONSchemaProps = {};
      if (target.doc) layer.description = target.doc;
      this.applyMarkers(layer, schema, target.markers, 'type', ownSite);
      schema = flattenFieldLayer(schema, layer);
    } else {
      if (target.doc) schema.description = target.doc;
      this.applyMarkers(
        schema,
        schema,
        target.markers,
        'type',
        ownSite,
        target.aliasOf !== undefined && hasNamedItems(target.aliasOf),
      );
    }
    this.origins.set(schema, target.location);
    this.cache.set(target, schema);
    return this.copy(schema);
  }

  /** A deep copy that keeps origins of every node. */
  private copy(schema: JSONSchemaProps): JSONSchemaProps {
    const origins = this.origins;
    const walk = (node: JSONSchemaProps): JSONSchemaProps => {
      const out = { ...node };
      if (node.properties)
        out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, walk(v)]));
      if (node.items) out.items = walk(node.items);
      if (typeof node.additionalProperties === 'object') out.additionalProperties = walk(node.additionalProperties);
      for (const key of ['allOf', 'anyOf', 'oneOf'] as const) if (node[key]) out[key] = node[key]!.map(walk);
      for (const key of [
        'default',
        'example',
        'enum',
        'required',
        'x-kubernetes-validations',
        'x-kubernetes-list-map-keys',
      ] as const) {
        if (node[key] !== undefined) (out as Record<string, unknown>)[key] = cloneSchema(node[key]);
      }
      const origin = origins.get(node);
      if (origin) origins.set(out, origin);
      return out;
    };
    return walk(schema);
  }

  private structSchema(fields: readonly FieldModel[], file: string, owner: string): JSONSchemaProps {
    const properties: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    const onceSet: ValidationRule[] = [];
    const defaultOptional = this.optionalByFile.get(file) ?? false;
    for (const field of fields) {
      try {
        properties[field.name] = this.fieldSchema(field, owner);
      } catch (error) {
        if (!(error instanceof SchemaError)) throw error;
        this.problems.push(error);
        continue;
      }
      if (isRequired(field, defaultOptional)) required.push(field.name);
      else {
        for (const marker of field.markers) {
          const rule = crdMarker(marker).ownerRule?.(field.name);
          if (rule) onceSet.push(rule);
        }
      }
    }
    // An empty struct is `type: object` alone in controller-gen's output, with no `properties: {}`.
    const schema: JSONSchemaProps =
      fields.length === 0 ? { type: 'object' } : { type: 'object', properties: sortRecord(properties) };
    if (required.length > 0) schema.required = required.sort();
    if (onceSet.length > 0) schema['x-kubernetes-validations'] = onceSet;
    return schema;
  }

  private fieldSchema(field: FieldModel, owner: string): JSONSchemaProps {
    const site = { subject: `${owner}: field "${field.name}"`, location: field.location };
    const verbatim = this.verbatimSchema(field.markers, field.doc, site);
    if (verbatim) {
      this.origins.set(verbatim, field.location);
      return verbatim;
    }
    if (findMarker(field.markers, 'kubebuilder:validation:Schemaless')) {
      const schema: JSONSchemaProps = {};
      if (field.doc) schema.description = field.doc;
      this.applyMarkers(schema, schema, field.markers, 'field', site);
      this.origins.set(schema, field.location);
      return schema;
    }
    const typeSchema = this.typeSchema(field.type, site);
    let schema: JSONSchemaProps;
    if (isNamedType(field.type)) {
      // controller-gen keeps a named type's schema and the field's own layer apart and
      // flattens them; the same merge gives the same result (see flattenFieldLayer).
      const layer: JSONSchemaProps = {};
      if (field.doc) layer.description = field.doc;
      this.applyMarkers(layer, typeSchema, field.markers, 'field', site);
      schema = flattenFieldLayer(typeSchema, layer);
    } else {
      schema = typeSchema;
      if (field.doc) schema.description = field.doc;
      this.applyMarkers(schema, schema, field.markers, 'field', site, hasNamedItems(field.type));
    }
    this.origins.set(schema, field.location);
    return schema;
  }

  /**
   * The schema `+kop:schema=<JSON>` gives verbatim (what `kop import crd --raw-schema` writes for
   * a construct no marker expresses, such as oneOf), with the doc comment as its description when
   * the JSON has none; undefined without the marker. It is the whole schema, so markers that
   * would change it are refused rather than dropped.
   */
  private verbatimSchema(markers: readonly Marker[], doc: string, site: Site): JSONSchemaProps | undefined {
    const marker = findMarker(markers, 'kop:schema');
    if (!marker) return undefined;
    const value = marker.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new MarkerSyntaxError(
        marker.location,
        `+${marker.name}`,
        'the value is not a JSON object',
        'write the schema as one JSON object, e.g. +kop:schema={"type":"string"}',
      );
    }
    const other = markers.find((m) => m !== marker && crdMarker(m).presence === undefined);
    if (other) {
      throw new MarkerPlacementError(
        other.location,
        `${site.subject} (+${other.name})`,
        '+kop:schema gives the whole schema here, so this marker would change nothing',
        'put the constraint inside the JSON of +kop:schema, or remove +kop:schema',
      );
    }
    const schema = cloneSchema(value) as JSONSchemaProps;
    if (doc && schema.description === undefined) schema.description = doc;
    return schema;
  }

  /**
   * Runs the schema effect of each marker (schema/markers/*.ts). Field rules go before the
   * rules the field's type brought; a type's own rules go after the rules generated from its
   * fields, in controller-gen's order (XValidation, immutability, AtMostOneOf, ExactlyOneOf,
   * AtLeastOneOf). When the elements of an array are a named type, `items:` markers form a
   * layer of their own that is flattened over the element type's schema, as controller-gen
   * flattens markers placed beside a `$ref`.
   */
  private applyMarkers(
    schema: JSONSchemaProps,
    fit: JSONSchemaProps,
    markers: readonly Marker[],
    target: 'type' | 'field',
    site: Site,
    namedItems = false,
  ): void {
    const rules = new Map<RuleGroup, ValidationRule[]>(RULE_ORDER.map((group) => [group, []]));
    const itemRules: ValidationRule[] = [];
    const itemsLayer: JSONSchemaProps = {};
    const addTo =
      (collected: (group: RuleGroup) => ValidationRule[]) =>
      (group: RuleGroup, rule: ValidationRule): void => {
        const list = collected(group);
        // The immutability rule is one rule however often the marker is said.
        if (group !== 'immutable' || !list.includes(rule)) list.push(rule);
      };
    for (const marker of markers) {
      const effect = crdMarker(marker).applyToSchema;
      if (!effect) continue;
      const application: SchemaApplication = {
        marker,
        site,
        schema,
        fit,
        addRule: addTo((group) => rules.get(group)!),
        misplaced: (fits) => this.misplaced(marker, site, fits, fit),
        badValue: (allowed) => this.badValue(marker, site, allowed),
        items: () => {
          if (fit.type !== 'array' || !fit.items) this.misplaced(marker, site, 'arrays', fit);
          schema.items ??= {};
          return {
            ...application,
            schema: namedItems ? itemsLayer : schema.items,
            fit: fit.items!,
            addRule: addTo(() => itemRules),
            misplaced: (fits) => this.misplaced(marker, site, fits, fit.items!),
          };
        },
      };
      effect(application);
    }
    const generated = RULE_ORDER.flatMap((group) => rules.get(group)!);
    if (generated.length > 0) {
      const existing = schema['x-kubernetes-validations'] ?? [];
      schema['x-kubernetes-validations'] =
        target === 'field' ? [...generated, ...existing] : [...existing, ...generated];
    }
    if (namedItems) {
      if (itemRules.length > 0) itemsLayer['x-kubernetes-validations'] = itemRules;
      if (Object.keys(itemsLayer).length > 0) schema.items = flattenFieldLayer(schema.items!, itemsLayer);
    } else if (itemRules.length > 0) {
      schema.items!['x-kubernetes-validations'] = [...(schema.items!['x-kubernetes-validations'] ?? []), ...itemRules];
    }
  }

  private misplaced(marker: Marker, site: Site, fits: string, schema: JSONSchemaProps): never {
    const actual = schema['x-kubernetes-int-or-string'] ? 'int-or-string' : (schema.type ?? 'untyped');
    throw new MarkerPlacementError(
      marker.location,
      `${site.subject} (+${marker.name})`,
      `this marker applies to ${fits}, and the type here is ${actual}`,
      'remove the marker or move it to a property of a fitting type',
    );
  }

  private badValue(marker: Marker, site: Site, allowed: string): never {
    throw new MarkerPlacementError(
      marker.location,
      `${site.subject} (+${marker.name})`,
      `value "${String(marker.value)}" is not allowed`,
      `use ${allowed}`,
    );
  }
}

/**
 * Optional/required per controller-gen: the presence markers by their precedence
 * (schema/markers/fields.ts), then `?`, then the package default.
 */
export function isRequired(field: FieldModel, defaultOptional: boolean): boolean {
  let stated: Presence | undefined;
  for (const marker of field.markers) {
    const presence = crdMarker(marker).presence;
    if (presence && (!stated || presence.precedence < stated.precedence)) stated = presence;
  }
  if (stated) return stated.required;
  if (defaultOptional) return false;
  return !field.optional;
}

function enumSchema(values: (string | number | boolean)[], text: string, site: Site): JSONSchemaProps {
  if (values.every((v) => typeof v === 'string')) return { type: 'string', enum: values };
  if (values.every((v) => typeof v === 'number')) {
    return { type: values.every((v) => Number.isInteger(v)) ? 'integer' : 'number', enum: values };
  }
  if (values.every((v) => typeof v === 'boolean')) return { type: 'boolean', enum: values };
  throw new UnsupportedUnionError(
    site.location,
    site.subject,
    `type "${text}" mixes literal kinds`,
    'use literals of one kind (all strings, all numbers) for an enum',
  );
}

function sortRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((k) => [k, record[k]!]),
  );
}

/** kop/api's names for Go's built-in integer types, which controller-gen does not see as named types. */
const BUILTIN_INTEGERS = new Set(['int', 'int32', 'int64']);

/** Types controller-gen sees as named Go types (a `$ref` it flattens), as opposed to built-ins and literals. */
function isNamedType(ref: TypeRef): boolean {
  return ref.kind === 'reference' || (ref.kind === 'wellKnown' && !BUILTIN_INTEGERS.has(ref.name));
}

/** An array whose elements are a named type, so `items:` markers are flattened over that type. */
function hasNamedItems(ref: TypeRef): boolean {
  return ref.kind === 'array' && isNamedType(ref.items);
}

const DOC_KEYS = new Set(['description', 'title', 'externalDocs', 'example']);

/**
 * Merges a field's own layer (its doc and markers) over the schema of its named type, as
 * controller-gen's flattener does: documentation of the field wins; the field's CEL rules
 * come first; an enum is taken only when the type has none; preserve-unknown-fields and
 * map type come from the field; any other key set differently on both sides moves into
 * `allOf: [{type's}, {field's}]` so both constraints hold.
 */
export function flattenFieldLayer(typeSchema: JSONSchemaProps, layer: JSONSchemaProps): JSONSchemaProps {
  const dst = typeSchema as Record<string, unknown>;
  const src = layer as Record<string, unknown>;
  const dstRemainder: Record<string, unknown> = {};
  const srcRemainder: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(src)) {
    if (value === undefined) continue;
    if (DOC_KEYS.has(key)) {
      dst[key] = value;
      continue;
    }
    if (key === 'enum') {
      if (dst.enum === undefined) dst.enum = value;
      continue;
    }
    if (dst[key] === undefined) {
      dst[key] = value;
      continue;
    }
    if (typeof value !== 'object' && dst[key] === value) continue;
    switch (key) {
      case 'x-kubernetes-validations':
        dst[key] = [...(value as ValidationRule[]), ...(dst[key] as ValidationRule[])];
        break;
      case 'required':
        dst[key] = [...new Set([...(dst[key] as string[]), ...(value as string[])])].sort();
        break;
      case 'type':
        break;
      case 'x-kubernetes-preserve-unknown-fields':
      case 'x-kubernetes-map-type':
        dst[key] = value;
        break;
      case 'properties':
      case 'items':
      case 'additionalProperties':
        if (typeof dst[key] === 'object' && typeof value === 'object')
          dst[key] = flattenFieldLayer(dst[key] as JSONSchemaProps, value as JSONSchemaProps);
        break;
      default:
        dstRemainder[key] = dst[key];
        srcRemainder[key] = value;
        delete dst[key];
    }
  }
  if (Object.keys(srcRemainder).length > 0) {
    dst.allOf = [...((dst.allOf as JSONSchemaProps[] | undefined) ?? []), dstRemainder, srcRemainder];
  }
  return typeSchema;
}
