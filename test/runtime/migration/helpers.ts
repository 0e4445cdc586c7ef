import type { RestClient } from '../../../src/runtime/client/index.js';
import type { ControlPlane, CustomResourceDefinition } from '../../../src/testing/index.js';

export const GROUP = 'migrate.kop.dev';
export const CRD_NAME = `gadgets.${GROUP}`;
export const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`;

/** A Gadget as stored: a spec with a few kinds of field and a status, so a lossy rewrite would show. */
export interface Gadget {
  apiVersion: string;
  kind: 'Gadget';
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: { size: number; tags: string[]; nested: { note: string } };
  status?: { phase: string };
}

const schema = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          size: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' } },
          nested: { type: 'object', properties: { note: { type: 'string' } } },
        },
      },
      status: { type: 'object', properties: { phase: { type: 'string' } } },
    },
  },
};

/** The Gadget CRD with the given versions (same schema, no conversion webhook: None strategy). */
export function gadgetCrd(
  versions: readonly string[],
  storage: string,
  deprecated: readonly string[] = [],
): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' },
      versions: versions.map((name) => ({
        name,
        served: true,
        storage: name === storage,
        ...(deprecated.includes(name) ? { deprecated: true } : {}),
        subresources: { status: {} },
        schema,
      })),
    },
  };
}

/** Replaces the CRD's versions (moving storage, or dropping one), as a new `kop install` would. */
export async function setVersions(rest: RestClient, versions: readonly string[], storage: string): Promise<void> {
  const current = await rest.get<CustomResourceDefinition>(CRD_PATH);
  const wanted = gadgetCrd(versions, storage);
  await rest.put(CRD_PATH, { ...current, spec: { ...current.spec, versions: wanted.spec.versions } });
  // The apiserver serves the new storage version once its CRD handler saw the update.
  await new Promise((resolve) => setTimeout(resolve, 1500));
}

export function gadget(namespace: string, i: number): Gadget {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'Gadget',
    metadata: { name: `gadget-${String(i).padStart(4, '0')}`, namespace },
    spec: { size: i, tags: [`t${i}`, 'x'], nested: { note: `note ${i} é ✓` } },
  };
}

/** Creates gadgets at v1, each with a status. */
export async function createGadgets(rest: RestClient, namespace: string, count: number, from = 0): Promise<Gadget[]> {
  const made: Gadget[] = [];
  for (let i = from; i < from + count; i++) {
    const object = gadget(namespace, i);
    const created = await rest.post<Gadget>(`/apis/${GROUP}/v1/namespaces/${namespace}/gadgets`, object);
    await rest.put(`/apis/${GROUP}/v1/namespaces/${namespace}/gadgets/${object.metadata.name}/status`, {
      ...created,
      status: { phase: `phase-${i}` },
    });
    made.push({ ...object, status: { phase: `phase-${i}` } });
  }
  return made;
}

export async function createNamespace(rest: RestClient, name: string): Promise<void> {
  await rest.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** The apiVersion each gadget (or object of `group`/`plural`) is stored at in etcd, read from etcd itself (`namespace/name` -> apiVersion). */
export async function storedApiVersions(
  plane: ControlPlane,
  group = GROUP,
  plural = 'gadgets',
): Promise<Map<string, string>> {
  const prefix = `/registry/${group}/${plural}/`;
  const key = Buffer.from(prefix).toString('base64');
  const end = Buffer.from(prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)).toString(
    'base64',
  );
  const res = await fetch(`${plane.etcdUrl}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key, range_end: end }),
  });
  const body = (await res.json()) as { kvs?: Array<{ key: string; value: string }> };
  const stored = new Map<string, string>();
  for (const kv of body.kvs ?? []) {
    const name = Buffer.from(kv.key, 'base64').toString().slice(prefix.length);
    const value = JSON.parse(Buffer.from(kv.value, 'base64').toString()) as { apiVersion: string };
    stored.set(name, value.apiVersion);
  }
  return stored;
}

/** Every gadget read back at `version`, with the fields the test wrote (nothing else), by `namespace/name`. */
export async function readBack(rest: RestClient, version: string): Promise<Map<string, unknown>> {
  const list = await rest.get<{ items: Gadget[] }>(`/apis/${GROUP}/${version}/gadgets`);
  return new Map(
    list.items.map((item) => [
      `${item.metadata.namespace}/${item.metadata.name}`,
      { name: item.metadata.name, namespace: item.metadata.namespace, spec: item.spec, status: item.status },
    ]),
  );
}

/** What readBack should return for the gadgets created. */
export function expected(gadgets: readonly Gadget[]): Map<string, unknown> {
  return new Map(
    gadgets.map((g) => [
      `${g.metadata.namespace}/${g.metadata.name}`,
      { name: g.metadata.name, namespace: g.metadata.namespace, spec: g.spec, status: g.status },
    ]),
  );
}
