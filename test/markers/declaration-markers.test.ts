import { describe, expect, it } from 'vitest';
import { commentMarkersInText, declarationMarkers } from '../../src/markers/collect.js';

// The one placement rule for a type's markers (markers/collect.ts), which the schema pipeline and
// create webhook --conversion share: the doc comment and the comment group right above it.
describe('declarationMarkers', () => {
  const cases: { name: string; given: string; want: [string, number][] | undefined }[] = [
    {
      name: 'markers in the doc comment',
      given: '/**\n * Doc.\n * +kubebuilder:object:root=true\n */\nexport interface A {}\n',
      want: [['+kubebuilder:object:root=true', 3]],
    },
    {
      name: 'a // group above the doc comment, then the doc comment',
      given:
        '// +kubebuilder:object:root=true\n// +versionName=v1\n\n/**\n * Doc.\n * +kubebuilder:subresource:status\n */\nexport interface A {}\n',
      want: [
        ['+kubebuilder:object:root=true', 1],
        ['+versionName=v1', 2],
        ['+kubebuilder:subresource:status', 6],
      ],
    },
    {
      name: 'a // group with no doc comment, a blank line above the type',
      given: '// +kubebuilder:object:root=true\n\nexport interface A {}\n',
      want: [['+kubebuilder:object:root=true', 1]],
    },
    {
      name: 'groups further up belong to nothing',
      given:
        '// +kubebuilder:storageversion\n\n// header\n\n/** +kubebuilder:object:root=true */\nexport interface A {}\n',
      want: [['+kubebuilder:object:root=true', 5]],
    },
    {
      name: 'another type of the file keeps its own markers',
      given:
        '/** +kubebuilder:storageversion */\nexport interface B {}\n\n/** +kubebuilder:object:root=true */\nexport interface A {}\n',
      want: [['+kubebuilder:object:root=true', 4]],
    },
    {
      name: 'an escaped star-slash in a doc comment is a star-slash; a // line keeps its text',
      given:
        '// +kubebuilder:printcolumn:name=A,JSONPath=`.a*\\/`\n\n/** +kubebuilder:resource:shortName=a*\\/b */\nexport interface A {}\n',
      want: [
        ['+kubebuilder:printcolumn:name=A,JSONPath=`.a*\\/`', 1],
        ['+kubebuilder:resource:shortName=a*/b', 3],
      ],
    },
    { name: 'no such type', given: 'export interface B {}\n', want: undefined },
  ];
  for (const { name, given, want } of cases) {
    it(name, async () => {
      const found = await declarationMarkers(given, 'a.types.ts', 'A');
      expect(found?.map((m) => [m.text, m.location.line])).toEqual(want);
    });
  }
});

describe('commentMarkersInText', () => {
  it('reads an escaped star-slash in a block comment as a star-slash, and keeps // lines as written', () => {
    const text = [
      '/**',
      ' * +kubebuilder:rbac:groups=apps,resources=a*\\/b,verbs=get',
      ' */',
      '// +kubebuilder:rbac:groups=apps,resources=c*\\/d,verbs=get',
      '/* +kubebuilder:rbac:groups=apps,resources=e*\\/f,verbs=get */',
    ].join('\n');
    const found = commentMarkersInText(text, 'x.ts', ['+kubebuilder:rbac:']).get('+kubebuilder:rbac:')!;
    expect(found.map((m) => m.text)).toEqual([
      '+kubebuilder:rbac:groups=apps,resources=a*/b,verbs=get',
      '+kubebuilder:rbac:groups=apps,resources=c*\\/d,verbs=get',
      '+kubebuilder:rbac:groups=apps,resources=e*/f,verbs=get',
    ]);
  });
});
