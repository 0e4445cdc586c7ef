import { describe, expect, it } from 'vitest';
import type { KubernetesObject } from '../../src/runtime/client/types/meta.js';
import type { ResourceType } from '../../src/runtime/client/resource/options.js';
import type { PartialObject } from '../../src/runtime/webhook/conversion.js';
import type { CustomResourceDefinition } from '../../src/testing/crds.js';
import {
  checkConversionRoundTrip,
  ConversionRoundTripError,
  firstDifference,
} from '../../src/testing/conversion-round-trip.js';

// v1 (the hub) has spec.size and spec.mode; v1alpha1 has spec.replicas for size and no mode.
interface V1 extends KubernetesObject {
  spec: { size: number; mode?: string };
}
interface V1alpha1 extends KubernetesObject {
  spec: { replicas: number };
}
const group = 'cache.example.com';
const hub: ResourceType<V1> = { group, version: 'v1', kind: 'Redis', resource: 'redis', namespaced: true };
const spoke: ResourceType<V1alpha1> = {
  group,
  version: 'v1alpha1',
  kind: 'Redis',
  resource: 'redis',
  namespaced: true,
};
const root = (spec: object) => ({
  type: 'object',
  required: ['spec'],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec,
  },
});
const crd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'redis.cache.example.com' },
  spec: {
    group,
    names: { kind: 'Redis', plural: 'redis' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: root({
            type: 'object',
            required: ['size'],
            properties: {
              size: { type: 'integer', format: 'int32', minimum: 0 },
              mode: { type: 'string', enum: ['standalone', 'cluster'] },
            },
          }),
        },
      },
      {
        name: 'v1alpha1',
        served: true,
        storage: false,
        schema: {
          openAPIV3Schema: root({
            type: 'object',
            required: ['replicas'],
            properties: { replicas: { type: 'integer', format: 'int32', minimum: 0 } },
          }),
        },
      },
    ],
  },
};

const MODE = 'cache.example.com/v1-mode';

/** Keeps v1's mode, which v1alpha1 cannot hold, in an annotation. */
const lossless = {
  convertTo(from: PartialObject<V1alpha1>): PartialObject<V1> {
    const { spec, metadata, ...rest } = from;
    const { [MODE]: mode, ...annotations } = metadata?.annotations ?? {};
    return {
      ...rest,
      metadata: { ...metadata, annotations },
      ...(spec !== undefined
        ? {
            spec: {
              ...(spec.replicas !== undefined ? { size: spec.replicas } : {}),
              ...(mode !== undefined ? { mode } : {}),
            },
          }
        : {}),
    };
  },
  convertFrom(from: PartialObject<V1>): PartialObject<V1alpha1> {
    const { spec, metadata, ...rest } = from;
    const annotations = { ...metadata?.annotations, ...(spec?.mode !== undefined ? { [MODE]: spec.mode } : {}) };
    return {
      ...rest,
      metadata: { ...metadata, annotations },
      ...(spec !== undefined ? { spec: spec.size !== undefined ? { replicas: spec.size } : {} } : {}),
    };
  },
};

describe('checkConversionRoundTrip', () => {
  it('passes a conversion that keeps what the spoke cannot hold in an annotation', async () => {
    // No annotations left: say so with `annotations: undefined` (the runtime keeps the input's when the key is missing).
    const tidy = <T extends PartialObject<KubernetesObject>>(object: T): T => {
      const annotations = object.metadata?.annotations;
      if (annotations !== undefined && Object.keys(annotations).length === 0) object.metadata!.annotations = undefined;
      return object;
    };
    const conversion = {
      convertTo: (o: PartialObject<V1alpha1>) => tidy(lossless.convertTo(o)),
      convertFrom: (o: PartialObject<V1>) => tidy(lossless.convertFrom(o)),
    };
    const started = performance.now();
    await expect(checkConversionRoundTrip({ crd, hub, spoke, conversion, runs: 300 })).resolves.toEqual({
      spokeToHub: 300,
      hubToSpoke: 300,
    });
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('fails a conversion that drops the hub-only field, naming the path and the object', async () => {
    const lossy = {
      convertTo: ({ spec, ...rest }: PartialObject<V1alpha1>): PartialObject<V1> => ({
        ...rest,
        ...(spec && { spec: { size: spec.replicas } }),
      }),
      convertFrom: ({ spec, ...rest }: PartialObject<V1>): PartialObject<V1alpha1> => ({
        ...rest,
        ...(spec && { spec: { replicas: spec.size } }),
      }),
    };
    const error = await checkConversionRoundTrip({ crd, hub, spoke, conversion: lossy }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConversionRoundTripError);
    const failure = error as ConversionRoundTripError;
    expect(failure.message).toMatch(/^Redis v1 → v1alpha1 → v1: spec\.mode was lost: it was "(standalone|cluster)"/);
    expect(failure.path).toBe('spec.mode');
    expect(failure.message).toContain('object (v1):');
    expect(failure.message).toContain('as v1alpha1:');
    expect((failure.object as V1).spec.mode).toBeDefined();
  });

  it('reports a conversion that throws on a pruned object', async () => {
    const fragile = {
      convertTo: (o: PartialObject<V1alpha1>) => ({ ...o, spec: { size: o.spec!.replicas } }),
      convertFrom: (o: PartialObject<V1>) => ({ ...o, spec: { replicas: o.spec!.size } }),
    };
    await expect(checkConversionRoundTrip({ crd, hub, spoke, conversion: fragile })).rejects.toThrow(
      /threw: .*the object is partial \(no .*spec/s,
    );
  });

  it('refuses a spoke of another kind, and a CRD file without the kind', async () => {
    await expect(
      checkConversionRoundTrip({ crd, hub, spoke: { ...spoke, kind: 'Other' } as never, conversion: lossless }),
    ).rejects.toThrow(/Other\.cache\.example\.com is not a version of Redis/);
    await expect(
      checkConversionRoundTrip({
        crd: { ...crd, spec: { ...crd.spec, group: 'x.io' } },
        hub,
        spoke,
        conversion: lossless,
      }),
    ).rejects.toThrow(/no CRD of Redis\.cache\.example\.com/);
  });
});

describe('firstDifference', () => {
  const cases: { given: [unknown, unknown]; want: string | undefined }[] = [
    { given: [{ a: 1 }, { a: 1 }], want: undefined },
    { given: [{ spec: { a: 1 } }, { spec: {} }], want: 'spec.a was lost: it was 1' },
    { given: [{ spec: {} }, { spec: { b: 2 } }], want: 'spec.b was added: 2' },
    { given: [{ l: [1, 2] }, { l: [1] }], want: 'l had 2 items and came back with 1' },
    { given: [{ l: [{ n: 'x' }] }, { l: [{ n: 'y' }] }], want: 'l[0].n changed: it was "x" and came back "y"' },
    { given: [{ m: { 'a/b': 1 } }, { m: {} }], want: 'm["a/b"] was lost: it was 1' },
  ];
  for (const { given, want } of cases) {
    it(want ?? 'equal objects', () => expect(firstDifference(given[0], given[1], '')?.description).toBe(want));
  }
});

describe('checkConversionRoundTrip prunes as the apiserver does', () => {
  it('fails the identity conversion when the hub has a field the spoke has not: the spoke object loses it', async () => {
    // Copying every field is lossless only in appearance: the apiserver prunes spec.mode from the v1alpha1 object.
    const copy = {
      convertTo: (o: PartialObject<V1alpha1>) => ({ ...o }) as PartialObject<V1>,
      convertFrom: (o: PartialObject<V1>) => ({ ...o }) as PartialObject<V1alpha1>,
    };
    const error = await checkConversionRoundTrip({ crd, hub, spoke, conversion: copy }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConversionRoundTripError);
    expect((error as ConversionRoundTripError).message).toMatch(/ was lost: it was /);
  });
});
