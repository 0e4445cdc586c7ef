import { describe, expect, it } from 'vitest';
import { fixtureFileOf, moduleFrom, readKindShape } from '../../src/project/kind-fixture.js';

const root = (
  members: string,
  extra = '',
  statusSubresource = true,
) => `import type { Condition, ObjectMeta } from 'kop/api';
${extra}
/**
 * +kubebuilder:object:root=true${statusSubresource ? '\n * +kubebuilder:subresource:status' : ''}
 */
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
${members}
}
`;

describe('readKindShape', () => {
  const cases: { name: string; given: string; want: { fixtureFields: string[]; hasConditions: boolean } }[] = [
    {
      name: "create api's kind: an all-optional spec, conditions in the status",
      given: root(
        '  spec: ThingSpec;\n  status?: ThingStatus;',
        'export interface ThingSpec { foo?: string }\nexport interface ThingStatus { conditions?: Condition[] }',
      ),
      want: { fixtureFields: ['spec: {},'], hasConditions: true },
    },
    {
      name: 'required nested fields get their least values; optional ones are left out',
      given: root(
        '  spec: ThingSpec;',
        "type Mode = 'Fast' | 'Slow';\nexport interface ThingSpec { schedule: string; size: int32; on: boolean; mode: Mode; tags: string[]; labels: Record<string, string>; inner: { 'a-b': number }; note?: string }",
      ),
      want: {
        fixtureFields: [
          "spec: { schedule: '', size: 0, on: false, mode: 'Fast', tags: [], labels: {}, inner: { 'a-b': 0 } },",
        ],
        hasConditions: false,
      },
    },
    {
      name: 'a ConfigMap-like kind: only data',
      given: root('  data: Record<string, string>;\n  immutable?: boolean;'),
      want: { fixtureFields: ['data: {},'], hasConditions: false },
    },
    {
      name: 'a kind with only status',
      given: root('  status?: ThingStatus;', 'export interface ThingStatus { conditions?: Condition[] }'),
      want: { fixtureFields: [], hasConditions: true },
    },
    {
      name: 'a status without conditions',
      given: root('  status?: ThingStatus;', 'export interface ThingStatus { phase?: string }'),
      want: { fixtureFields: [], hasConditions: false },
    },
    {
      name: 'a type kop cannot see into is left for the user (tsc then points at the fixture)',
      given: root(
        '  spec: ThingSpec;',
        "import type { Quantity } from 'kop/api';\nexport interface ThingSpec { size: Quantity }",
      ),
      want: { fixtureFields: [], hasConditions: false },
    },
  ];
  for (const { name, given, want } of cases) {
    it(name, async () => {
      expect(await readKindShape(given, 'Thing')).toEqual(want);
    });
  }

  it('is undefined when the file declares no such interface', async () => {
    expect(await readKindShape(root(''), 'Other')).toBeUndefined();
  });
});

describe('fixture paths', () => {
  it('mirror the types file under test/fixtures and import it relatively', () => {
    expect(fixtureFileOf('api/batch/v1/cronjob.types.ts')).toBe('test/fixtures/batch/v1/cronjob.ts');
    expect(moduleFrom('test/fixtures/batch/v1/cronjob.ts', 'api/batch/v1/cronjob.types.ts')).toBe(
      '../../../../api/batch/v1/cronjob.types.js',
    );
    expect(moduleFrom('test/controllers/cronjob.controller.test.ts', 'test/fixtures/batch/v1/cronjob.ts')).toBe(
      '../fixtures/batch/v1/cronjob.js',
    );
  });
});
