import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from '../../../src/testing/index.js';
import { ApiError, isNotFound, type KubernetesObject } from '../../../src/runtime/index.js';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { coreV1ConfigMapType, coreV1NamespaceType } from '../../../src/runtime/builtin/index.js';
import { DynamicClient } from '../../../src/runtime/client/dynamic/dynamic-client.js';
import { isResourceVersionTooLarge, isTimeout } from '../../../src/runtime/client/errors/api-error.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import { leaseTestControlPlane, restFor, type LeasedControlPlane } from '../controller/helpers.js';

// Details of client-go's semantics that kop's client once got wrong, each shown against a real
// kube-apiserver: the bug reproduced first, then fixed.

/** A CRD with a selectable field, whose values (unlike label values) may hold ',', '=' and '\\'. */
const widgetCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.audit.kop.dev' },
  spec: {
    group: 'audit.kop.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { target: { type: 'string' } } } },
          },
        },
        selectableFields: [{ jsonPath: '.spec.target' }],
      },
    ],
  },
};

interface Widget extends KubernetesObject {
  spec?: { target?: string };
}

let plane: LeasedControlPlane;
let rest: RestClient;

beforeAll(async () => {
  plane = await leaseTestControlPlane();
  // The plane's reset after this file deletes the CRD again.
  await plane.installCRDs([widgetCrd]);
  rest = restFor(plane);
});

afterAll(async () => {
  rest?.close();
  await plane?.release();
});

/** Runs a client call, turning a synchronous throw (argument checks) into a rejection. */
async function attempt<R>(call: () => Promise<R>): Promise<R> {
  return call();
}

let nsCounter = 0;
async function freshNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${++nsCounter}`;
  await new ResourceClient(rest, coreV1NamespaceType).create({ metadata: { name } });
  return name;
}

describe('names and namespaces that are not path segments', () => {
  it('refuses "." and ".." and names with "/" or "%" before sending anything, so they cannot address another object', async () => {
    const ns = await freshNamespace('dot-names');
    const cms = new ResourceClient(rest, coreV1ConfigMapType, ns);
    await cms.create({ metadata: { name: 'keep' }, data: { a: '1' } });

    // URL resolution would turn `<ns>/configmaps/..` into `/api/v1/namespaces/<ns>/`: the namespace itself.
    for (const name of ['.', '..', 'a/b', '../keep', '100%']) {
      await expect(attempt(() => cms.get(name))).rejects.toThrow(TypeError);
      await expect(attempt(() => cms.delete(name))).rejects.toThrow(TypeError);
      await expect(attempt(() => cms.patch(name, { type: 'merge', patch: { data: { b: '2' } } }))).rejects.toThrow(
        TypeError,
      );
    }
    await expect(attempt(() => cms.update({ metadata: { name: '..' } }))).rejects.toThrow(TypeError);
    const namespace = await new ResourceClient(rest, coreV1NamespaceType).get(ns);
    expect(namespace.metadata?.deletionTimestamp).toBeUndefined();
    expect((await cms.get('keep')).data).toEqual({ a: '1' });

    // `inNamespace('..')` would list every namespace's ConfigMaps.
    expect(() => new ResourceClient(rest, coreV1ConfigMapType, '..')).toThrow(TypeError);
    expect(() => new ResourceClient(rest, coreV1ConfigMapType, 'a/b')).toThrow(TypeError);
    const dynamic = new DynamicClient(rest);
    expect(() => dynamic.resource({ group: '', version: 'v1', resource: 'configmaps' }).inNamespace('.')).toThrow(
      TypeError,
    );
    // Names the apiserver allows that need escaping still work.
    await expect(cms.get('no:such')).rejects.toSatisfy((e: unknown) => isNotFound(e) && e instanceof ApiError);
  });
});

describe('the default User-Agent', () => {
  it('names writes without a fieldManager "kop-runtime" in managedFields, as the apiserver takes the part before the first "/"', async () => {
    const ns = await freshNamespace('user-agent');
    const cms = new ResourceClient(rest, coreV1ConfigMapType, ns);
    const created = await cms.create({ metadata: { name: 'managed' }, data: { a: '1' } });
    expect(created.metadata?.managedFields?.map((f) => f.manager)).toEqual(['kop-runtime']);
  });
});

describe('field selectors given as a map', () => {
  it('escapes ",", "=" and "\\" in values, as client-go does, so a selectable field matches its exact value', async () => {
    const ns = await freshNamespace('field-escape');
    const widgets = new ResourceClient<Widget>(
      rest,
      {
        group: 'audit.kop.dev',
        version: 'v1',
        resource: 'widgets',
        kind: 'Widget',
        namespaced: true,
      },
      ns,
    );
    const targets = { plain: 'a', comma: 'a,b=c', slash: 'x\\y' };
    for (const [name, target] of Object.entries(targets))
      await widgets.create({ metadata: { name }, spec: { target } });
    for (const [name, target] of Object.entries(targets)) {
      const list = await widgets.list({ fieldSelector: { 'spec.target': target } });
      expect(list.items.map((w) => w.metadata?.name)).toEqual([name]);
    }
  });
});

describe('a resourceVersion newer than the server has', () => {
  it('fails as isTimeout and isResourceVersionTooLarge (client-go: IsTooLargeResourceVersion)', async () => {
    // The apiserver waits 3 s for its cache to catch up, then answers 504 with Retry-After: 1,
    // which the client would retry; this client gives up at once.
    const impatient = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), {
      qps: Infinity,
      maxThrottleRetries: 0,
    });
    const ns = await freshNamespace('too-large');
    const cms = new ResourceClient(impatient, coreV1ConfigMapType, ns);
    const future = String(Number((await cms.list()).metadata.resourceVersion) + 100_000);
    const listError = await cms
      .list({ resourceVersion: future, resourceVersionMatch: 'NotOlderThan' })
      .catch((e: unknown) => e);
    expect(isTimeout(listError)).toBe(true);
    expect(isResourceVersionTooLarge(listError)).toBe(true);
    expect(isResourceVersionTooLarge(await cms.get('missing').catch((e: unknown) => e))).toBe(false);
    impatient.close();
  }, 20_000);
});
