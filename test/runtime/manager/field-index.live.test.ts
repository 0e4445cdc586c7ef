// Field indexes with controller-runtime's semantics on a real apiserver: manager.indexField before
// start, then client.list(type, { namespace, matchingFields }) from the cache, per namespace or
// across all of them, and clear errors where the cache cannot answer.
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '../../../src/runtime/index.js';
import { Manager, silentLogger } from '../../../src/runtime/index.js';
import { coreV1ConfigMapType } from '../../../src/runtime/builtin/index.js';
import { createClient, type RestClient } from '../../../src/runtime/client/index.js';
import type { Widget } from '../controller/helpers.js';
import { freshNamespace, restFor, useTestControlPlane, waitFor, widgetResource } from '../controller/helpers.js';
import type { SharedControlPlane } from '../../helpers/shared-control-plane.js';

let plane: SharedControlPlane;
let admin: RestClient;
let client: Client;
useTestControlPlane((started) => {
  ({ plane, admin } = started);
  client = createClient(admin);
});

let running: { manager: Manager; done: Promise<void> } | undefined;
afterEach(async () => {
  await running?.manager.stop();
  await running?.done;
  running = undefined;
});

function newManager(): Manager {
  return new Manager({
    rest: restFor(plane),
    logger: silentLogger,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    uncachedTypes: [coreV1ConfigMapType],
  });
}

async function start(manager: Manager): Promise<void> {
  running = { manager, done: manager.start() };
  await waitFor(() => manager.informersStarted && manager.informerFor(widgetResource).hasSynced(), 15_000, 'synced');
}

const names = (list: { items: Widget[] }): string[] =>
  list.items.map((w) => `${w.metadata!.namespace}/${w.metadata!.name}`).sort();

/** The tutorial's kind of index: the size a Widget asks for, as a string. */
const bySize = (widget: Widget): string[] => (widget.spec?.size === undefined ? [] : [String(widget.spec.size)]);

describe('field indexes', () => {
  it('lists by an indexed field in one namespace or in all, follows changes, and combines with labels and other fields', async () => {
    const [ns1, ns2] = [await freshNamespace(admin, 'index-a'), await freshNamespace(admin, 'index-b')];
    const manager = newManager();
    manager.indexField(widgetResource, 'spec.size', bySize);
    manager.indexField(widgetResource, 'metadata.name', (w) => [w.metadata!.name!]);
    // A size no other test uses, so the cluster-wide list sees only this test's widgets.
    const size = 7000 + (process.pid % 1000);
    for (const [ns, name, widgetSize, tier] of [
      [ns1, 'a', size, 'web'],
      [ns1, 'b', size, 'db'],
      [ns1, 'c', size + 1, 'web'],
      [ns2, 'a', size, 'web'],
    ] as const)
      await client.create(widgetResource, {
        metadata: { name, namespace: ns, labels: { tier } },
        spec: { size: widgetSize },
      });
    await start(manager);
    const list = (namespace: string | undefined, fields: Record<string, string>, labelSelector?: string) =>
      manager.client.list(widgetResource, { namespace, matchingFields: fields, labelSelector });

    expect(names(await list(ns1, { 'spec.size': String(size) }))).toEqual([`${ns1}/a`, `${ns1}/b`]);
    expect(names(await list(ns2, { 'spec.size': String(size) }))).toEqual([`${ns2}/a`]);
    expect(names(await list(undefined, { 'spec.size': String(size) }))).toEqual([`${ns1}/a`, `${ns1}/b`, `${ns2}/a`]);
    expect(names(await list(ns1, { 'spec.size': String(size) }, 'tier=web'))).toEqual([`${ns1}/a`]);
    expect(names(await list(undefined, { 'spec.size': String(size), 'metadata.name': 'a' }))).toEqual([
      `${ns1}/a`,
      `${ns2}/a`,
    ]);
    expect(names(await list(ns1, { 'spec.size': 'none' }))).toEqual([]);

    // A change moves the object from one value to the other once the cache has seen it.
    const b = await client.get(widgetResource, { namespace: ns1, name: 'b' });
    await client.update(widgetResource, { ...b, spec: { size: size + 1 } });
    await waitFor(async () => names(await list(ns1, { 'spec.size': String(size + 1) })).length === 2, 10_000, 'moved');
    expect(names(await list(ns1, { 'spec.size': String(size) }))).toEqual([`${ns1}/a`]);
    await client.delete(widgetResource, { namespace: ns2, name: 'a' });
    await waitFor(async () => names(await list(undefined, { 'spec.size': String(size) })).length === 1, 10_000, 'gone');
  });

  it('says which field has no index, and that matchingFields needs the cache', async () => {
    const manager = newManager();
    manager.indexField(widgetResource, 'spec.size', bySize);
    expect(() => manager.indexField(widgetResource, 'spec.size', bySize)).toThrow(/"spec.size" is indexed already/);
    // Before the start nothing is cached: reads go to the apiserver, which has no field indexes.
    await expect(manager.client.list(widgetResource, { matchingFields: { 'spec.size': '1' } })).rejects.toThrow(
      /list Widget with matchingFields \(spec.size\): .*the cache has not started/,
    );
    await start(manager);
    await expect(manager.client.list(widgetResource, { matchingFields: { 'spec.replicas': '1' } })).rejects.toThrow(
      /list Widget: no field index for "spec.replicas"; add one before the manager starts: manager.indexField/,
    );
    await expect(manager.client.list(coreV1ConfigMapType, { matchingFields: { 'data.x': '1' } })).rejects.toThrow(
      /list ConfigMap with matchingFields \(data.x\): .*ConfigMap is not cached \(uncachedTypes\)/,
    );
    await expect(
      manager.client.list(widgetResource, { live: true, matchingFields: { 'spec.size': '1' } }),
    ).rejects.toThrow(/matchingFields is answered from a manager's cache/);
    await expect(manager.apiReader.list(widgetResource, { matchingFields: { 'spec.size': '1' } })).rejects.toThrow(
      /use fieldSelector/,
    );
    expect(() => manager.indexField(widgetResource, 'spec.fail', () => [])).toThrow(/before the manager starts/);
  });
});
