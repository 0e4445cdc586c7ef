/**
 * The schema-to-types stage, table-driven: given one property's schema, the declaration kop writes
 * for it, and the round trip through kop's own pipeline gives the schema back exactly.
 */
import { describe, expect, it } from 'vitest';
import { CoreTypeIndex } from '../../src/import/core-type-index.js';
import { importedCrd } from '../../src/import/imported-crd.js';
import { kindFiles } from '../../src/import/kind-files.js';
import { renderComment } from '../../src/import/render-types.js';
import { describable, quote } from '../../src/import/schema-to-types.js';
import { verifyRoundTrip } from '../../src/import/verify-round-trip.js';
import type { JSONSchemaProps } from '../../src/schema/json-schema.js';
import { TYPE_META_PROPERTIES } from '../../src/schema/to-openapi.js';

const core = new CoreTypeIndex();

/** A one-version CRD whose spec has one property `field` with `schema`. */
function crdWith(schema: JSONSchemaProps, kind = 'Widget') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.toLowerCase()}s.example.org` },
    spec: {
      group: 'example.org',
      names: { kind, listKind: `${kind}List`, plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              properties: {
                ...TYPE_META_PROPERTIES,
                metadata: { type: 'object' },
                spec: { properties: { field: schema }, type: 'object' },
              },
              type: 'object',
            },
          },
        },
      ],
    },
  };
}

/** The types file of `schema` as a property, after checking that it gives the schema back. */
async function typesOf(schema: JSONSchemaProps, rawSchema = false): Promise<string> {
  const imported = importedCrd({ where: 'test.yaml', value: crdWith(schema) });
  const files = await kindFiles(imported, core, {
    groupDir: 'example',
    rawSchema,
    exact: true,
    licenseHeader: '',
    read: async () => undefined,
  });
  await verifyRoundTrip({
    root: '/nonexistent',
    files: new Map([...files.types, ...files.groupVersions]),
    expected: imported.crd,
    exact: true,
    allowDangerousTypes: files.usesFloats,
  });
  return [...files.types.values()][0]!;
}

describe('a property schema becomes a field with markers, and comes back', () => {
  const cases: { name: string; given: JSONSchemaProps; want: string[] }[] = [
    { name: 'a Go int', given: { type: 'integer' }, want: ['  field?: int;'] },
    {
      name: 'an int32 enum',
      given: { type: 'integer', format: 'int32', enum: [301, 302] },
      want: ['  /** +kubebuilder:validation:Enum=301;302 */', '  field?: int32;'],
    },
    {
      name: 'strings that look like numbers stay strings',
      given: { type: 'string', enum: ['1', 'two'] },
      want: ["  field?: '1' | 'two';"],
    },
    {
      name: 'a CEL rule with every argument, and one that holds */',
      given: {
        type: 'string',
        'x-kubernetes-validations': [
          {
            rule: 'self.size() > 1',
            message: 'too "short"',
            messageExpression: "'x'",
            reason: 'FieldValueInvalid',
            fieldPath: '.x',
            optionalOldSelf: true,
          },
          { rule: "self.matches('a*/b')" },
        ],
      },
      want: [
        '   * +kubebuilder:validation:XValidation:rule="self.size() > 1",message=`too "short"`,messageExpression="\'x\'",reason=FieldValueInvalid,fieldPath=.x,optionalOldSelf=true',
        // JSON quotes write */ as *\/, which keeps the doc comment open.
        '   * +kubebuilder:validation:XValidation:rule="self.matches(\'a*\\/b\')"',
        '  field?: string;',
      ],
    },
    {
      name: 'items with their own constraints, as items: markers',
      given: { type: 'array', items: { type: 'string', maxLength: 5, pattern: '^a' }, 'x-kubernetes-list-type': 'set' },
      want: [
        '   * +listType=set',
        '   * +kubebuilder:validation:items:MaxLength=5',
        '   * +kubebuilder:validation:items:Pattern=`^a`',
        '  field?: string[];',
      ],
    },
    {
      name: 'items with a description become a named alias',
      given: { type: 'array', items: { description: 'One name.', type: 'string', minLength: 1 } },
      want: [
        '  field?: WidgetSpecField[];',
        '/**\n * One name.\n * +kubebuilder:validation:MinLength=1\n */\nexport type WidgetSpecField = string;',
      ],
    },
    {
      name: 'lists of lists',
      given: { type: 'array', items: { type: 'array', items: { type: 'string', maxLength: 3 }, maxItems: 2 } },
      want: [
        '  field?: WidgetSpecField[];',
        '/**\n * +kubebuilder:validation:MaxItems=2\n * +kubebuilder:validation:items:MaxLength=3\n */\nexport type WidgetSpecField = string[];',
      ],
    },
    {
      name: 'map values with a constraint become a named alias',
      given: { type: 'object', additionalProperties: { type: 'string', maxLength: 9 } },
      want: [
        '  field?: Record<string, WidgetSpecFieldValue>;',
        '/** +kubebuilder:validation:MaxLength=9 */\nexport type WidgetSpecFieldValue = string;',
      ],
    },
    {
      name: 'a default, nullable and a description holding */ as // lines',
      given: {
        description: 'Globs like a*/b.',
        default: { a: [1] },
        nullable: true,
        type: 'object',
        properties: { a: { type: 'array', items: { type: 'integer' } } },
      },
      want: ['  // Globs like a*/b.', '  // +nullable', '  // +default={"a":[1]}', '  field?: WidgetSpecField;'],
    },
    {
      name: 'an int-or-string without anyOf',
      given: { 'x-kubernetes-int-or-string': true },
      want: [
        '   * +kubebuilder:validation:Schemaless',
        '   * +kubebuilder:validation:XIntOrString',
        '  field?: IntOrString;',
      ],
    },
    {
      name: 'a core type with a CEL rule of the field over it',
      given: {
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        'x-kubernetes-int-or-string': true,
        'x-kubernetes-validations': [{ rule: 'true' }],
      },
      want: ['  /** +kubebuilder:validation:XValidation:rule=true */', '  field?: IntOrString;'],
    },
    {
      name: 'free-form JSON with a constraint',
      given: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'has(self.a)' }] },
      want: ['  field?: JSON;'],
    },
    { name: 'a bare object', given: { type: 'object' }, want: ['  field?: {};'] },
    {
      name: 'a float',
      given: { type: 'number', format: 'double' },
      want: ['  /** +kubebuilder:validation:Format=double */', '  field?: number;'],
    },
    {
      name: 'a property name that is not an identifier',
      given: { type: 'object', properties: { 'app.kubernetes.io/name': { type: 'string' } } },
      want: ["  'app.kubernetes.io/name'?: string;"],
    },
  ];
  it.each(cases)('$name', async ({ given, want }) => {
    const types = await typesOf(given);
    for (const line of want) expect(types).toContain(line);
  });

  const refused: { name: string; given: JSONSchemaProps; want: string }[] = [
    {
      name: 'oneOf',
      given: { type: 'string', oneOf: [{ format: 'date' }, { format: 'date-time' }] },
      want: 'version v1, .spec.field: "oneOf" has no kop marker',
    },
    {
      name: 'a default on list items',
      given: { type: 'array', items: { type: 'string', default: 'x' } },
      want: 'version v1, .spec.field[*]: +default on a list item or map value: controller-gen has no marker for it there',
    },
    {
      name: 'an enum with null',
      given: { type: 'string', nullable: true, enum: ['a', null] },
      want: 'version v1, .spec.field: the enum value null has no Enum marker form',
    },
    {
      name: 'a description with trailing spaces',
      given: { type: 'string', description: 'two lines  \nhere' },
      want: 'version v1, .spec.field: its description has trailing spaces',
    },
  ];
  it.each(refused)('refuses $name, naming the path, and --raw-schema keeps it verbatim', async ({ given, want }) => {
    await expect(typesOf(given)).rejects.toThrow(`test.yaml: ${want}`);
    expect(await typesOf(given, true)).toContain('+kop:schema=');
  });
});

describe('writing marker arguments and comments', () => {
  it('quotes what the marker parser would not read back', () => {
    expect(quote('.spec.replicas')).toBe('.spec.replicas');
    expect(quote('has spaces')).toBe('"has spaces"');
    expect(quote('say "hi"')).toBe('`say "hi"`');
    expect(quote('a`b"c')).toBe('"a`b\\"c"');
    expect(quote('a*/b')).toBe('"a*\\/b"');
    expect(quote('^[a-z]+$', true)).toBe('`^[a-z]+$`');
  });

  it('knows which descriptions a doc comment holds exactly', () => {
    expect(describable('one\n\ntwo')).toBe(true);
    expect(describable('  indented code')).toBe(true);
    expect(describable('trailing ')).toBe(false);
    expect(describable('a\n\n\nb')).toBe(false);
    expect(describable('\nleading')).toBe(false);
    expect(describable('x\n+optional')).toBe(false);
    expect(describable('cr\r\n')).toBe(false);
  });

  it('writes JSDoc, one line when it fits, and // lines when a line holds */', () => {
    expect(renderComment('', [], '  ')).toBe('');
    expect(renderComment('Short.', [], '')).toBe('/** Short. */');
    expect(renderComment('One.\n\nTwo.', ['+optional'], '  ')).toBe(
      '  /**\n   * One.\n   *\n   * Two.\n   * +optional\n   */',
    );
    expect(renderComment('a */ b', ['+x'], '')).toBe('// a */ b\n// +x');
  });
});
