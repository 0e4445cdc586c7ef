/**
 * controller-gen's validation markers (`+kubebuilder:validation:<Name>`, and the same on an
 * array's elements as `+kubebuilder:validation:items:<Name>`), the CEL rules they generate
 * (XValidation, ExactlyOneOf, AtMostOneOf, AtLeastOneOf, k8s:immutable), and the markers that
 * say where a schema comes from or how much of it the apiserver keeps.
 */
import type { JSONValue } from '../../base/index.js';
import { MarkerPlacementError, MarkerSyntaxError } from '../errors.js';
import type { ValidationRule } from '../json-schema.js';
import { re2PatternProblem } from '../re2-pattern.js';
import type { MarkerTarget } from '../../markers/index.js';
import type { CrdMarkerDefinition, SchemaApplication } from './definition.js';

/** The reasons the apiserver accepts on a CEL rule. */
export const CEL_REASONS = ['FieldValueRequired', 'FieldValueInvalid', 'FieldValueForbidden', 'FieldValueDuplicate'];

const XVALIDATION_ARGS = {
  rule: { type: 'string' },
  message: { type: 'string', optional: true },
  messageExpression: { type: 'string', optional: true },
  reason: { type: 'string', optional: true },
  fieldPath: { type: 'string', optional: true },
  optionalOldSelf: { type: 'bool', optional: true },
} as const;

const numeric = (a: SchemaApplication): boolean => a.fit.type === 'integer' || a.fit.type === 'number';

/** A validation marker's effect on the schema it stands on (or, for `items:`, on the elements' schema). */
type Validation = (a: SchemaApplication) => void;

/** `+<prefix>Minimum=<n>` and its siblings: a number on numbers. */
const bound =
  (key: 'minimum' | 'maximum' | 'multipleOf'): Validation =>
  (a) => {
    if (!numeric(a)) a.misplaced('numbers');
    a.schema[key] = a.marker.value as number;
  };

/** `+<prefix>ExclusiveMinimum=true` and `ExclusiveMaximum`: a flag on numbers. */
const exclusive =
  (key: 'exclusiveMinimum' | 'exclusiveMaximum'): Validation =>
  (a) => {
    if (!numeric(a)) a.misplaced('numbers');
    if (a.marker.value === true) a.schema[key] = true;
  };

/** A count on one type of schema: string lengths, item counts, property counts. */
const count =
  (key: 'minLength' | 'maxLength' | 'minItems' | 'maxItems' | 'minProperties' | 'maxProperties'): Validation =>
  (a) => {
    const [type, fits] =
      key === 'minLength' || key === 'maxLength'
        ? ['string', 'strings']
        : key === 'minItems' || key === 'maxItems'
          ? ['array', 'arrays']
          : ['object', 'objects and maps'];
    if (a.fit.type !== type) a.misplaced(fits);
    a.schema[key] = a.marker.value as number;
  };

/** A flag copied to a schema key when true, whatever the type. */
const flag =
  (
    key: 'x-kubernetes-preserve-unknown-fields' | 'x-kubernetes-embedded-resource' | 'x-kubernetes-int-or-string',
  ): Validation =>
  (a) => {
    if (a.marker.value === true) a.schema[key] = true;
  };

const pattern: Validation = (a) => {
  if (a.fit.type !== 'string') a.misplaced('strings');
  const value = String(a.marker.value);
  const problem = re2PatternProblem(value);
  if (problem) {
    throw new MarkerSyntaxError(
      a.marker.location,
      `+${a.marker.name}`,
      `the apiserver cannot compile this pattern: ${problem}`,
      'write it in RE2 syntax (Go regexp), which the apiserver uses; lookarounds and backreferences have no RE2 form',
    );
  }
  a.schema.pattern = value;
};

const uniqueItems: Validation = (a) => {
  if (a.fit.type !== 'array') a.misplaced('arrays');
  if (a.marker.value === true) a.schema.uniqueItems = true;
};

/** A CEL rule as `+kubebuilder:validation:XValidation:rule=...,message=...` writes it. */
function celRule(a: SchemaApplication): ValidationRule {
  const marker = a.marker;
  const reason = marker.args.reason;
  if (reason !== undefined && !CEL_REASONS.includes(String(reason))) {
    throw new MarkerPlacementError(
      marker.location,
      `${a.site.subject} (+${marker.name})`,
      `reason "${String(reason)}" is not one the apiserver accepts`,
      `use ${CEL_REASONS.join(', ')}`,
    );
  }
  const rule: ValidationRule = { rule: String(marker.args.rule) };
  for (const key of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) {
    if (marker.args[key] !== undefined && marker.args[key] !== '') rule[key] = String(marker.args[key]);
  }
  if (marker.args.optionalOldSelf === true) rule.optionalOldSelf = true;
  return rule;
}

const xValidation: Validation = (a) => a.addRule('XValidation', celRule(a));

/** `ExactlyOneOf`, `AtMostOneOf`, `AtLeastOneOf`: a rule over fields of the type the marker stands on. */
function oneOf(group: 'ExactlyOneOf' | 'AtMostOneOf' | 'AtLeastOneOf'): CrdMarkerDefinition {
  return {
    name: `kubebuilder:validation:${group}`,
    targets: ['type'],
    value: 'stringList',
    repeatable: true,
    applyToSchema(a) {
      const fields = (a.marker.value as JSONValue[]).map(String);
      for (const field of fields) {
        if (!a.fit.properties?.[field]) {
          throw new MarkerPlacementError(
            a.marker.location,
            `${a.site.subject} (+${a.marker.name})`,
            `names field "${field}", which the type does not have`,
            `list fields of ${a.site.subject}: ${Object.keys(a.fit.properties ?? {}).join(', ')}`,
          );
        }
      }
      const has = `[${fields.map((f) => `has(self.${f})`).join(',')}].filter(x,x==true).size()`;
      const list = `[${fields.join(' ')}]`;
      a.addRule(
        group,
        group === 'ExactlyOneOf'
          ? { message: `exactly one of the fields in ${list} must be set`, rule: `${has} == 1` }
          : group === 'AtMostOneOf'
            ? { message: `at most one of the fields in ${list} may be set`, rule: `${has} <= 1` }
            : { message: `at least one of the fields in ${list} must be set`, rule: `${has} >= 1` },
      );
    },
  };
}

/** The markers of one prefix, with the effect each has on the schema it applies to. */
function validationMarkers(prefix: string, onItems: boolean): CrdMarkerDefinition[] {
  const targets: MarkerTarget[] = ['type', 'field'];
  // On `items:`, the effect applies to the elements of the array the marker stands on.
  const at = (validation: Validation) => (onItems ? (a: SchemaApplication) => validation(a.items()) : validation);
  const marker = (name: string, value: CrdMarkerDefinition['value'], validation: Validation): CrdMarkerDefinition => ({
    name: `${prefix}${name}`,
    targets,
    value,
    applyToSchema: at(validation),
  });
  return [
    marker('Minimum', 'number', bound('minimum')),
    marker('Maximum', 'number', bound('maximum')),
    marker('MultipleOf', 'number', bound('multipleOf')),
    marker('MinLength', 'int', count('minLength')),
    marker('MaxLength', 'int', count('maxLength')),
    marker('MinItems', 'int', count('minItems')),
    marker('MaxItems', 'int', count('maxItems')),
    marker('MinProperties', 'int', count('minProperties')),
    marker('MaxProperties', 'int', count('maxProperties')),
    marker('ExclusiveMinimum', 'bool', exclusive('exclusiveMinimum')),
    marker('ExclusiveMaximum', 'bool', exclusive('exclusiveMaximum')),
    marker('UniqueItems', 'bool', uniqueItems),
    marker('XPreserveUnknownFields', 'bool', flag('x-kubernetes-preserve-unknown-fields')),
    marker('XEmbeddedResource', 'bool', flag('x-kubernetes-embedded-resource')),
    marker('XIntOrString', 'bool', flag('x-kubernetes-int-or-string')),
    marker('Pattern', 'string', pattern),
    marker('Format', 'string', (a) => (a.schema.format = String(a.marker.value))),
    marker('Type', 'string', (a) => (a.schema.type = String(a.marker.value))),
    marker('Enum', 'anyList', (a) => (a.schema.enum = a.marker.value as JSONValue[])),
    { name: `${prefix}XValidation`, targets, args: XVALIDATION_ARGS, repeatable: true, applyToSchema: at(xValidation) },
  ];
}

/** The immutability rule of `+k8s:immutable` on the field itself. */
const IMMUTABLE_RULE: ValidationRule = { message: 'field is immutable', rule: 'self == oldSelf' };

/** The validation vocabulary, in the order kop's registry lists it (the order "did you mean" prefers). */
export const VALIDATION_MARKERS: readonly CrdMarkerDefinition[] = [
  ...validationMarkers('kubebuilder:validation:', false),
  ...validationMarkers('kubebuilder:validation:items:', true),
  oneOf('ExactlyOneOf'),
  oneOf('AtMostOneOf'),
  oneOf('AtLeastOneOf'),
  // The field's schema is its doc and markers alone: read where fields are assembled (to-openapi.ts).
  { name: 'kubebuilder:validation:Schemaless', targets: ['field'] },
  {
    name: 'kubebuilder:validation:EmbeddedResource',
    targets: ['field'],
    applyToSchema: flag('x-kubernetes-embedded-resource'),
  },
  {
    name: 'kubebuilder:pruning:PreserveUnknownFields',
    targets: ['type', 'field'],
    applyToSchema: (a) => (a.schema['x-kubernetes-preserve-unknown-fields'] = true),
  },
  {
    name: 'k8s:immutable',
    targets: ['field'],
    applyToSchema: (a) => a.addRule('immutable', IMMUTABLE_RULE),
    // Once set, an optional field may not be removed again: a rule on the object holding it.
    ownerRule: (field) => ({
      message: `field ${field} is immutable once set`,
      rule: `!has(oldSelf.${field}) || has(self.${field})`,
    }),
  },
  // kop's own: a schema given verbatim, for what no marker expresses (kop import crd --raw-schema);
  // it replaces the type's schema, so to-openapi.ts reads it before any other marker.
  { name: 'kop:schema', targets: ['type', 'field'], value: 'json' },
  // Declarative validation's enum tag: kop's string-literal unions are enums already.
  { name: 'k8s:enum', targets: ['type'] },
];
