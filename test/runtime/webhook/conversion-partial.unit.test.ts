// Conversion of partial objects: for server-side apply the apiserver converts pruned objects,
// some without spec or even metadata, and refuses an answer without metadata. The registry keeps
// the input's metadata whatever the conversion returns, and says so when a conversion throws on
// a partial object.
import { describe, expect, it } from 'vitest';
import type { KubernetesObject, ResourceType } from '../../../src/runtime/index.js';
import { silentLogger } from '../../../src/runtime/index.js';
import { ConversionRegistry, type SpokeConversion } from '../../../src/runtime/webhook/conversion.js';

interface Hub extends KubernetesObject {
  spec?: { schedule?: string };
}
interface Spoke extends KubernetesObject {
  spec?: { cron?: string };
}
const base = { group: 'test.kop.dev', resource: 'jobs', kind: 'Job', namespaced: true } as const;
const hub: ResourceType<Hub> = { ...base, version: 'v2' };
const spoke: ResourceType<Spoke> = { ...base, version: 'v1' };

function registry(conversion: SpokeConversion<Hub, Spoke>): ConversionRegistry {
  const r = new ConversionRegistry();
  r.register(
    hub,
    new Map([[spoke, conversion as unknown as SpokeConversion<KubernetesObject, KubernetesObject>]]) as Map<
      ResourceType,
      SpokeConversion<KubernetesObject, KubernetesObject>
    >,
  );
  return r;
}

async function convert(conversion: SpokeConversion<Hub, Spoke>, object: unknown, desired = 'test.kop.dev/v2') {
  const reply = (await registry(conversion).handle({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'u', desiredAPIVersion: desired, objects: [object] },
    },
    url: new URL('https://x/convert'),
    signal: new AbortController().signal,
    logger: silentLogger,
  })) as { body: { response: { convertedObjects: KubernetesObject[]; result: { status: string; message?: string } } } };
  return reply.body.response;
}

const meta = {
  name: 'j',
  namespace: 'ns',
  uid: 'uid-1',
  resourceVersion: '9',
  labels: { team: 'a' },
  annotations: { note: 'kept' },
};

/** A careful conversion: every field may be missing. */
const careful: SpokeConversion<Hub, Spoke> = {
  convertTo: (s) => ({ ...(s.spec ? { spec: { schedule: s.spec.cron } } : {}) }),
  convertFrom: (h) => ({ ...(h.spec ? { spec: { cron: h.spec.schedule } } : {}) }),
};

/** A conversion that trusts its types, as the tutorial's does at first. */
const trusting: SpokeConversion<Hub, Spoke> = {
  convertTo: (s) => ({ metadata: s.metadata, spec: { schedule: s.spec!.cron!.trim() } }),
  convertFrom: (h) => ({ metadata: h.metadata, spec: { cron: h.spec!.schedule! } }),
};

describe('conversion of partial objects', () => {
  it('answers with metadata for an object that came without any (a pruned object of server-side apply)', async () => {
    const response = await convert(careful, { apiVersion: 'test.kop.dev/v1', kind: 'Job' });
    expect(response.result).toEqual({ status: 'Success' });
    expect(response.convertedObjects).toEqual([{ apiVersion: 'test.kop.dev/v2', kind: 'Job', metadata: {} }]);
  });

  it("keeps the input's metadata whatever the conversion returns, taking only labels and annotations it sets", async () => {
    const renaming: SpokeConversion<Hub, Spoke> = {
      // A name, uid and resourceVersion of its own, which the apiserver would refuse, and no labels: ignored.
      convertTo: (s) => ({
        metadata: { name: 'other', uid: 'x', resourceVersion: '1' },
        spec: { schedule: s.spec?.cron },
      }),
      // An annotation keeping what the other version cannot hold, and labels removed on purpose.
      convertFrom: (h) => ({
        metadata: { annotations: { 'test.kop.dev/lost': 'yes' }, labels: undefined },
        spec: { cron: h.spec?.schedule },
      }),
    };
    const up = await convert(renaming, {
      apiVersion: 'test.kop.dev/v1',
      kind: 'Job',
      metadata: meta,
      spec: { cron: '* * * * *' },
    });
    expect(up.convertedObjects[0]).toEqual({
      apiVersion: 'test.kop.dev/v2',
      kind: 'Job',
      metadata: meta,
      spec: { schedule: '* * * * *' },
    });
    const down = await convert(
      renaming,
      { apiVersion: 'test.kop.dev/v2', kind: 'Job', metadata: meta, spec: { schedule: '@daily' } },
      'test.kop.dev/v1',
    );
    expect(down.convertedObjects[0]).toEqual({
      apiVersion: 'test.kop.dev/v1',
      kind: 'Job',
      metadata: {
        name: 'j',
        namespace: 'ns',
        uid: 'uid-1',
        resourceVersion: '9',
        annotations: { 'test.kop.dev/lost': 'yes' },
      },
      spec: { cron: '@daily' },
    });
  });

  it('spoke to hub: annotations the conversion removes stay removed (found by the round-trip property test)', async () => {
    // The spoke carried the hub's field in an annotation; converting to the hub takes it back out.
    const unstash: SpokeConversion<Hub, Spoke> = {
      convertTo: (s) => ({
        metadata: { annotations: undefined },
        spec: { schedule: s.metadata?.annotations?.['test.kop.dev/schedule'] },
      }),
      convertFrom: (h) => ({ spec: { cron: h.spec?.schedule } }),
    };
    const up = await convert(unstash, {
      apiVersion: 'test.kop.dev/v1',
      kind: 'Job',
      metadata: { name: 'j', annotations: { 'test.kop.dev/schedule': '@daily' } },
      spec: {},
    });
    expect(up.convertedObjects[0]).toEqual({
      apiVersion: 'test.kop.dev/v2',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { schedule: '@daily' },
    });
  });

  it('a conversion that throws on a partial object gets an error saying the object is partial and why', async () => {
    const noSpec = await convert(trusting, { apiVersion: 'test.kop.dev/v1', kind: 'Job', metadata: meta });
    expect(noSpec.result.status).toBe('Failure');
    expect(noSpec.convertedObjects).toEqual([]);
    expect(noSpec.result.message).toMatch(
      /^converting object 0 \(j\) to test.kop.dev\/v2: Cannot read properties of undefined \(reading 'cron'\); the object is partial \(no spec\): for server-side apply the apiserver converts pruned objects, so a conversion must accept any field missing$/,
    );
    const nothing = await convert(trusting, { apiVersion: 'test.kop.dev/v2', kind: 'Job' }, 'test.kop.dev/v1');
    expect(nothing.result.message).toMatch(/the object is partial \(no metadata, no spec\)/);
    // A whole object that fails says only what the conversion threw.
    const whole = await convert(trusting, { apiVersion: 'test.kop.dev/v1', kind: 'Job', metadata: meta, spec: {} });
    expect(whole.result.message).toBe(
      "converting object 0 (j) to test.kop.dev/v2: Cannot read properties of undefined (reading 'trim')",
    );
  });
});
