import { describe, expect, it } from 'vitest';
import type { KubernetesObject, ResourceType } from '../../../src/runtime/index.js';
import { silentLogger } from '../../../src/runtime/index.js';
import { ConversionRegistry, type SpokeConversion } from '../../../src/runtime/webhook/conversion.js';

// Hub v2 keeps `replicas`; spoke v1 called it `size`; spoke v3 keeps it as a string.
interface V2 extends KubernetesObject {
  spec?: { replicas?: number };
}
interface V1 extends KubernetesObject {
  spec?: { size?: number };
}
interface V3 extends KubernetesObject {
  spec?: { count?: string };
}
const base = { group: 'test.kop.dev', resource: 'gadgets', kind: 'Gadget', namespaced: true } as const;
const v1: ResourceType<V1> = { ...base, version: 'v1' };
const v2: ResourceType<V2> = { ...base, version: 'v2' };
const v3: ResourceType<V3> = { ...base, version: 'v3' };
const v1Conversion: SpokeConversion<V2, V1> = {
  convertTo: (spoke) => ({ metadata: spoke.metadata, spec: { replicas: spoke.spec?.size } }),
  // No metadata on purpose: the input's is used.
  convertFrom: (hub) => ({ spec: { size: hub.spec?.replicas } }),
};
const v3Conversion: SpokeConversion<V2, V3> = {
  convertTo: async (spoke) => ({ metadata: spoke.metadata, spec: { replicas: Number(spoke.spec?.count) } }),
  convertFrom: async (hub) => {
    if ((hub.spec?.replicas ?? 0) > 100) throw new Error('v3 holds at most 100 replicas');
    return { metadata: hub.metadata, spec: { count: String(hub.spec?.replicas) } };
  },
};

function registry(): ConversionRegistry {
  const r = new ConversionRegistry();
  r.register(
    v2,
    new Map<ResourceType, SpokeConversion<KubernetesObject, KubernetesObject>>([
      [v1, v1Conversion as unknown as SpokeConversion<KubernetesObject, KubernetesObject>],
      [v3, v3Conversion as unknown as SpokeConversion<KubernetesObject, KubernetesObject>],
    ]),
  );
  return r;
}

const meta = { name: 'g', namespace: 'ns', uid: 'u1', resourceVersion: '7' };

function reviewOf(desiredAPIVersion: unknown, objects: unknown): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: 'c-1', desiredAPIVersion, objects },
  };
}

async function handle(body: unknown): Promise<{
  status: number;
  body: {
    response?: { uid: string; convertedObjects: unknown[]; result: { status: string; message?: string } };
  } & Record<string, unknown>;
}> {
  return (await registry().handle({
    body,
    url: new URL('https://x/convert'),
    signal: new AbortController().signal,
    logger: silentLogger,
  })) as never;
}

describe('ConversionRegistry', () => {
  const cases: { name: string; given: { desired: string; object: KubernetesObject }; want: KubernetesObject }[] = [
    {
      name: 'spoke to hub (convertTo)',
      given: {
        desired: 'test.kop.dev/v2',
        object: { apiVersion: 'test.kop.dev/v1', kind: 'Gadget', metadata: meta, spec: { size: 3 } } as V1,
      },
      want: { apiVersion: 'test.kop.dev/v2', kind: 'Gadget', metadata: meta, spec: { replicas: 3 } } as V2,
    },
    {
      name: 'hub to spoke (convertFrom), metadata from the input',
      given: {
        desired: 'test.kop.dev/v1',
        object: { apiVersion: 'test.kop.dev/v2', kind: 'Gadget', metadata: meta, spec: { replicas: 4 } } as V2,
      },
      want: { apiVersion: 'test.kop.dev/v1', kind: 'Gadget', metadata: meta, spec: { size: 4 } } as V1,
    },
    {
      name: 'spoke to spoke through the hub',
      given: {
        desired: 'test.kop.dev/v3',
        object: { apiVersion: 'test.kop.dev/v1', kind: 'Gadget', metadata: meta, spec: { size: 5 } } as V1,
      },
      want: { apiVersion: 'test.kop.dev/v3', kind: 'Gadget', metadata: meta, spec: { count: '5' } } as V3,
    },
    {
      name: 'same version unchanged',
      given: {
        desired: 'test.kop.dev/v1',
        object: { apiVersion: 'test.kop.dev/v1', kind: 'Gadget', metadata: meta, spec: { size: 6 } } as V1,
      },
      want: { apiVersion: 'test.kop.dev/v1', kind: 'Gadget', metadata: meta, spec: { size: 6 } } as V1,
    },
  ];
  it.each(cases)('$name', async ({ given, want }) => {
    const reply = await handle(reviewOf(given.desired, [given.object]));
    expect(reply.status).toBe(200);
    expect(reply.body.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(reply.body.kind).toBe('ConversionReview');
    expect(reply.body.response).toEqual({ uid: 'c-1', convertedObjects: [want], result: { status: 'Success' } });
  });

  it('round-trips spoke -> hub -> spoke unchanged, and leaves the input alone', async () => {
    const r = registry();
    const original = { apiVersion: 'test.kop.dev/v3', kind: 'Gadget', metadata: meta, spec: { count: '9' } };
    const copy = structuredClone(original);
    const hub = await r.convert(original, 'test.kop.dev/v2');
    expect(await r.convert(hub, 'test.kop.dev/v3')).toEqual(original);
    expect(original).toEqual(copy);
  });

  it('converts every object of a review in order', async () => {
    const objects = Array.from({ length: 5 }, (_, i) => ({
      apiVersion: 'test.kop.dev/v1',
      kind: 'Gadget',
      metadata: { name: `g${i}` },
      spec: { size: i },
    }));
    const reply = await handle(reviewOf('test.kop.dev/v2', objects));
    expect(reply.body.response?.convertedObjects.map((o) => (o as V2).spec?.replicas)).toEqual([0, 1, 2, 3, 4]);
  });

  const failures: { name: string; given: { desired: unknown; objects: unknown }; want: RegExp }[] = [
    {
      name: 'a throw in user code',
      given: {
        desired: 'test.kop.dev/v3',
        objects: [
          { apiVersion: 'test.kop.dev/v2', kind: 'Gadget', metadata: { name: 'big' }, spec: { replicas: 500 } },
        ],
      },
      want: /^converting object 0 \(big\) to test\.kop\.dev\/v3: v3 holds at most 100 replicas$/,
    },
    {
      name: 'an unknown kind',
      given: { desired: 'test.kop.dev/v2', objects: [{ apiVersion: 'test.kop.dev/v1', kind: 'Other', metadata: {} }] },
      want: /no conversion registered for kind Other\.test\.kop\.dev/,
    },
    {
      name: 'an unknown version',
      given: { desired: 'test.kop.dev/v9', objects: [{ apiVersion: 'test.kop.dev/v1', kind: 'Gadget', metadata: {} }] },
      want: /has no version v9 registered \(hub v2, spokes v1, v3\)/,
    },
    {
      name: 'another group',
      given: { desired: 'other.dev/v2', objects: [{ apiVersion: 'test.kop.dev/v1', kind: 'Gadget' }] },
      want: /cannot convert Gadget from group "test\.kop\.dev" to "other\.dev"/,
    },
    {
      name: 'an object without apiVersion',
      given: { desired: 'test.kop.dev/v2', objects: [{ kind: 'Gadget' }] },
      want: /object has no apiVersion and kind/,
    },
    {
      name: 'an object that is no object',
      given: { desired: 'test.kop.dev/v2', objects: ['Gadget'] },
      want: /object has no apiVersion and kind/,
    },
    { name: 'no desiredAPIVersion', given: { desired: undefined, objects: [] }, want: /no desiredAPIVersion/ },
    { name: 'objects not a list', given: { desired: 'test.kop.dev/v2', objects: { a: 1 } }, want: /no objects/ },
    {
      name: 'the second of two objects fails: none is returned',
      given: {
        desired: 'test.kop.dev/v2',
        objects: [
          { apiVersion: 'test.kop.dev/v1', kind: 'Gadget', metadata: {} },
          { apiVersion: 'test.kop.dev/v7', kind: 'Gadget', metadata: {} },
        ],
      },
      want: /^converting object 1 to test\.kop\.dev\/v2: .*no version v7/,
    },
  ];
  it.each(failures)('Failure with the message, no objects: $name', async ({ given, want }) => {
    const reply = await handle(reviewOf(given.desired, given.objects));
    expect(reply.status).toBe(200);
    expect(reply.body.response?.uid).toBe('c-1');
    expect(reply.body.response?.convertedObjects).toEqual([]);
    expect(reply.body.response?.result.status).toBe('Failure');
    expect(reply.body.response?.result.message).toMatch(want);
  });

  it.each([
    { name: 'not JSON object', given: 'x' },
    {
      name: 'v1beta1',
      given: { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview', request: { uid: 'a' } },
    },
    {
      name: 'an AdmissionReview',
      given: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'a' } },
    },
    {
      name: 'no uid',
      given: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { desiredAPIVersion: 'x' } },
    },
  ])('HTTP 400 for a body that is no ConversionReview v1: $name', async ({ given }) => {
    const reply = await handle(given);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ kind: 'Status', code: 400 });
  });

  it('takes the spokes of one hub one registration at a time, as the scaffold registers each spoke from its own file', async () => {
    const r = new ConversionRegistry();
    const erase = <H extends KubernetesObject, S extends KubernetesObject>(c: SpokeConversion<H, S>) =>
      c as unknown as SpokeConversion<KubernetesObject, KubernetesObject>;
    r.register(v2, new Map([[v1 as ResourceType, erase(v1Conversion)]]));
    r.register(v2, new Map([[v3 as ResourceType, erase(v3Conversion)]]));
    const object = { apiVersion: 'test.kop.dev/v1', kind: 'Gadget', metadata: meta, spec: { size: 3 } };
    expect(await r.convert(object, 'test.kop.dev/v3')).toEqual({
      apiVersion: 'test.kop.dev/v3',
      kind: 'Gadget',
      metadata: meta,
      spec: { count: '3' },
    });
  });

  const bad =
    (hub: ResourceType, spokes: [ResourceType, SpokeConversion<KubernetesObject, KubernetesObject>][]) => () => {
      const r = registry();
      r.register(hub, new Map(spokes));
    };
  const noop: SpokeConversion<KubernetesObject, KubernetesObject> = { convertTo: (o) => o, convertFrom: (o) => o };
  it.each([
    {
      name: 'a kind registered again with another hub',
      given: bad(v1, [[v3, noop]]),
      want: /conversion of Gadget\.test\.kop\.dev is registered already with the hub v2; a kind has one hub/,
    },
    {
      name: 'a spoke registered twice',
      given: bad(v2, [[v1, noop]]),
      want: /spoke v1 of Gadget\.test\.kop\.dev is given twice/,
    },
    {
      name: 'a spoke of another kind',
      given: bad({ ...v2, kind: 'Other' }, [[v1, noop]]),
      want: /spoke Gadget\.test\.kop\.dev\/v1 is not a version of the hub's kind Other/,
    },
    {
      name: 'the hub as its own spoke',
      given: bad({ ...v2, kind: 'Other' }, [[{ ...v2, kind: 'Other' }, noop]]),
      want: /v2 is the hub; a spoke must be another version/,
    },
    { name: 'no spoke', given: bad({ ...v2, kind: 'Other' }, []), want: /needs at least one spoke version/ },
  ])('register refuses $name', ({ given, want }) => {
    expect(given).toThrow(want);
  });
});
