import { describe, expect, it } from 'vitest';
import { MarkerSyntaxError, UnknownMarkerError } from '../../src/schema/errors.js';
import { guessValue, isMarkerLine, parseArgument, parseMarker, splitTopLevel } from '../../src/schema/markers.js';
import { nearestMarkerName } from '../../src/schema/markers.js';

const at = { file: 'api/x/v1/types.ts', line: 7 };

describe('parseMarker', () => {
  const table: { given: string; want: { name: string; value?: unknown; args?: Record<string, unknown> } }[] = [
    { given: '+optional', want: { name: 'optional', value: true } },
    { given: '+kubebuilder:object:root=true', want: { name: 'kubebuilder:object:root', value: true } },
    { given: '+kubebuilder:validation:Minimum=1', want: { name: 'kubebuilder:validation:Minimum', value: 1 } },
    { given: '+kubebuilder:validation:Minimum=-0.5', want: { name: 'kubebuilder:validation:Minimum', value: -0.5 } },
    {
      given: '+kubebuilder:validation:items:MaxLength=3',
      want: { name: 'kubebuilder:validation:items:MaxLength', value: 3 },
    },
    {
      given: '+kubebuilder:validation:Pattern=`^[a-z]+$`',
      want: { name: 'kubebuilder:validation:Pattern', value: '^[a-z]+$' },
    },
    {
      given: '+kubebuilder:validation:Pattern=^a,b$',
      want: { name: 'kubebuilder:validation:Pattern', value: '^a,b$' },
    },
    {
      given: '+kubebuilder:validation:Enum=a;b;"c d"',
      want: { name: 'kubebuilder:validation:Enum', value: ['a', 'b', 'c d'] },
    },
    { given: '+kubebuilder:validation:Enum={1,2}', want: { name: 'kubebuilder:validation:Enum', value: [1, 2] } },
    {
      given: '+kubebuilder:default={name: "x", n: 2, tags: {a,b}}',
      want: { name: 'kubebuilder:default', value: { name: 'x', n: 2, tags: ['a', 'b'] } },
    },
    { given: '+default={"a":[1,2]}', want: { name: 'default', value: { a: [1, 2] } } },
    { given: '+listMapKey=name', want: { name: 'listMapKey', value: 'name' } },
    // controller-gen's alternate spelling of a single value, as the CronJob tutorial writes it.
    { given: '+kubebuilder:default:=Allow', want: { name: 'kubebuilder:default', value: 'Allow' } },
    { given: '+kubebuilder:validation:Minimum:=2', want: { name: 'kubebuilder:validation:Minimum', value: 2 } },
    {
      given: '+kubebuilder:validation:XValidation:rule="self.a, self.b",message="no, not that",optionalOldSelf=true',
      want: {
        name: 'kubebuilder:validation:XValidation',
        args: { rule: 'self.a, self.b', message: 'no, not that', optionalOldSelf: true },
      },
    },
    {
      given: '+kubebuilder:resource:path=things,shortName=th;t,categories={all,infra},scope=Cluster',
      want: {
        name: 'kubebuilder:resource',
        args: { path: 'things', shortName: ['th', 't'], categories: ['all', 'infra'], scope: 'Cluster' },
      },
    },
    { given: '+kubebuilder:deprecatedversion', want: { name: 'kubebuilder:deprecatedversion', args: {} } },
    {
      given: '+kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`,priority=1',
      want: {
        name: 'kubebuilder:printcolumn',
        args: { name: 'Age', type: 'date', JSONPath: '.metadata.creationTimestamp', priority: 1 },
      },
    },
  ];
  for (const { given, want } of table) {
    it(given, () => {
      const marker = parseMarker(given, at);
      expect(marker.name).toBe(want.name);
      if (want.value !== undefined) expect(marker.value).toEqual(want.value);
      if (want.args !== undefined) expect(marker.args).toEqual(want.args);
      expect(marker.location).toEqual(at);
    });
  }

  it('rejects unknown markers with the location', () => {
    expect(() => parseMarker('+kubebuilder:validation:MaxLen=3', at)).toThrow(UnknownMarkerError);
    expect(() => parseMarker('+kubebuilder:validation:MaxLen=3', at)).toThrow(/types\.ts:7/);
  });

  const bad = [
    '+kubebuilder:validation:Minimum=one',
    '+kubebuilder:validation:MaxLength=1.5',
    '+kubebuilder:validation:UniqueItems=yes',
    '+optional=true',
    '+kubebuilder:resource:pth=x',
    '+kubebuilder:subresource:scale:specpath=.spec.replicas',
    '+default=unquoted',
    '+kubebuilder:validation:XValidation:message="no rule"',
  ];
  for (const given of bad) {
    it(`rejects ${given}`, () => {
      expect(() => parseMarker(given, at)).toThrow(MarkerSyntaxError);
    });
  }
});

describe('marker values', () => {
  it('guesses types like controller-gen', () => {
    expect(guessValue('3')).toBe(3);
    expect(guessValue('true')).toBe(true);
    expect(guessValue('info')).toBe('info');
    expect(guessValue('"3"')).toBe('3');
    expect(guessValue('{}')).toEqual({});
    expect(guessValue('{a: {b: 1}}')).toEqual({ a: { b: 1 } });
  });
  it('splits lists outside quotes and braces', () => {
    expect(splitTopLevel('a;"b;c";{d;e}', ';')).toEqual(['a', '"b;c"', '{d;e}']);
    expect(parseArgument('{a, b}', 'stringList')).toEqual(['a', 'b']);
  });
  it('recognises marker lines', () => {
    expect(isMarkerLine(' +optional')).toBe(true);
    expect(isMarkerLine('+1 for this')).toBe(false);
    expect(isMarkerLine('a + b')).toBe(false);
  });
});

describe('nearestMarkerName', () => {
  const cases = [
    { given: 'kubebuilder:validation:Maximun', want: 'kubebuilder:validation:Maximum' },
    { given: 'kubebuilder:validation:maxlength', want: 'kubebuilder:validation:MaxLength' },
    { given: 'kubebuilder:defualt', want: 'kubebuilder:default' },
    { given: 'listtype', want: 'listType' },
    { given: 'kubebuilder:validation:Pattrn', want: 'kubebuilder:validation:Pattern' },
    { given: 'totally:unknown', want: undefined },
    { given: 'kubebuilder:printcolumn:name', want: undefined },
  ];
  for (const { given, want } of cases) {
    it(`${given} -> ${want ?? 'no suggestion'}`, () => expect(nearestMarkerName(given)).toBe(want));
  }
});
