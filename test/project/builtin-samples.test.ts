import { describe, expect, it } from 'vitest';
import { builtinSampleFields, builtinSampleLiteral } from '../../src/project/builtin-samples.js';

describe('built-in samples', () => {
  it('gives create webhook the members of the object create api scaffolds, on one line', () => {
    expect(builtinSampleFields('ConfigMap')).toBe("data: { greeting: 'hello' },");
    expect(builtinSampleFields('Job')).toBe(
      "spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } },",
    );
    const literal = builtinSampleLiteral(
      { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true } as Parameters<
        typeof builtinSampleLiteral
      >[0],
      'configmap',
    );
    expect(literal).toContain("      data: {\n        greeting: 'hello',\n      },\n    }");
  });

  it('gives no members for a kind whose sample has none or that has no sample', () => {
    expect(builtinSampleFields('Namespace')).toBe('');
    expect(builtinSampleFields('NoSuchKind')).toBe('');
  });
});
