import { describe, expect, it } from 'vitest';
import { MarkerSyntaxError, UnknownMarkerError } from '../../src/markers/errors.js';
import { MarkerRegistry, markerRegistry } from '../../src/markers/registry.js';
// Each vocabulary registers its markers when its module loads, as `kop generate` loads them all.
import '../../src/schema/markers.js';
import '../../src/rbac/rbac-markers.js';
import '../../src/webhook-manifests/webhook-markers.js';

const at = { file: 'f.ts', line: 3 };

describe('the shared marker registry', () => {
  it('holds the CRD, rbac and webhook vocabularies, each name once', () => {
    const vocabularies = new Set(markerRegistry.definitions().map((d) => d.vocabulary));
    expect([...vocabularies].sort()).toEqual(['crd', 'rbac', 'webhook']);
    expect(markerRegistry.definition('kubebuilder:rbac')?.vocabulary).toBe('rbac');
    expect(markerRegistry.definition('kubebuilder:webhookconfiguration')?.vocabulary).toBe('webhook');
    expect(markerRegistry.definition('kubebuilder:validation:Minimum')?.vocabulary).toBe('crd');
    expect(markerRegistry.definition('kubebuilder:rbac', 'crd')).toBeUndefined();
  });

  it('refuses a name registered twice', () => {
    const registry = new MarkerRegistry();
    registry.register('crd', [{ name: 'x', targets: ['field'] }]);
    expect(() => registry.register('rbac', [{ name: 'x', targets: ['package'] }])).toThrow(
      'marker x is registered twice (crd, rbac)',
    );
  });

  const lookups: { given: string; want: string | undefined }[] = [
    { given: 'kubebuilder:validation:items:Minimum=1', want: 'kubebuilder:validation:items:Minimum' },
    { given: 'kubebuilder:webhookconfiguration:mutating=true', want: 'kubebuilder:webhookconfiguration' },
    { given: 'kubebuilder:webhook:mutating=true,name=a', want: 'kubebuilder:webhook' },
    { given: 'kubebuilder:rbac:groups=apps,verbs=get', want: 'kubebuilder:rbac' },
    // A flag or value marker ends at its name: nothing may follow after a ':'.
    { given: 'kubebuilder:subresource:status:extra', want: undefined },
    { given: 'kubebuilder:rbacs:groups=a', want: undefined },
  ];
  for (const { given, want } of lookups) {
    it(`looks up +${given} as ${want ?? 'nothing'}`, () => expect(markerRegistry.lookup(given)?.name).toBe(want));
  }

  it('parses with one parser for every vocabulary', () => {
    const rbac = markerRegistry.parse('+kubebuilder:rbac:groups=apps,resources=deployments;pods,verbs=get', at, 'rbac');
    expect(rbac.args).toEqual({ groups: ['apps'], resources: ['deployments', 'pods'], verbs: ['get'] });
    const crd = markerRegistry.parse('+kubebuilder:validation:Maximum=5', at, 'crd');
    expect(crd).toMatchObject({ name: 'kubebuilder:validation:Maximum', value: 5 });
    expect(() => markerRegistry.parse('+kubebuilder:rbac:groups=apps', at, 'rbac')).toThrow(MarkerSyntaxError);
    expect(() => markerRegistry.parse('+kubebuilder:rbac:groups=apps', at, 'rbac')).toThrow(
      /missing argument verbs; write it as \+kubebuilder:rbac:\[groups=<stringList>\]/,
    );
  });

  it('suggests the nearest name of the vocabulary, also when arguments follow a misspelt name', () => {
    expect(markerRegistry.nearest('kubebuilder:validation:Maximun', 'crd')?.name).toBe(
      'kubebuilder:validation:Maximum',
    );
    expect(markerRegistry.nearest('kubebuilder:rbacs:groups', 'rbac')?.name).toBe('kubebuilder:rbac');
    expect(markerRegistry.nearest('kubebuilder:webhok:path', 'webhook')?.name).toBe('kubebuilder:webhook');
    expect(markerRegistry.nearest('kubebuilder:printcolum:name', 'crd')?.name).toBe('kubebuilder:printcolumn');
    expect(markerRegistry.nearest('kubebuilder:rbacs:groups', 'crd')).toBeUndefined();
  });

  it('says which vocabulary a marker belongs to when it is read in the wrong place', () => {
    const error = (() => {
      try {
        markerRegistry.parse('+kubebuilder:webhook:path=/m', at, 'crd');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UnknownMarkerError);
    expect((error as Error).message).toBe(
      '+kubebuilder:webhook:path: this is a webhook marker, which kop does not read here; put it in a comment of a file under src/ (a reconciler or main.ts) (f.ts:3)',
    );
  });
});

describe('a CRD marker carries its effect', () => {
  it('applies itself to a schema through its definition, refusing a type it does not fit', async () => {
    const { markerDefinition } = await import('../../src/schema/markers.js');
    const marker = markerRegistry.parse('+kubebuilder:validation:Maximum=5', at, 'crd');
    const schema: Record<string, unknown> = {};
    const refused: string[] = [];
    const application = (fit: { type: string }) => ({
      marker,
      site: { subject: 'T: field "n"', location: at },
      schema,
      fit,
      addRule: () => undefined,
      items: () => application(fit),
      misplaced: (fits: string): never => {
        refused.push(fits);
        throw new Error(fits);
      },
      badValue: (allowed: string): never => {
        throw new Error(allowed);
      },
    });
    markerDefinition(marker.name)!.applyToSchema!(application({ type: 'integer' }));
    expect(schema).toEqual({ maximum: 5 });
    expect(() => markerDefinition(marker.name)!.applyToSchema!(application({ type: 'string' }))).toThrow('numbers');
    expect(refused).toEqual(['numbers']);
  });
});
