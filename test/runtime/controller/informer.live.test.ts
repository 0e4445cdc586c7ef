import { describe, expect, it } from 'vitest';
import type { SharedControlPlane } from '../../helpers/shared-control-plane.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import type { WatchRestartReason } from '../../../src/runtime/cache/informer.js';
import { coreV1SecretType } from '../../../src/runtime/builtin/index.js';
import { Informer } from '../../../src/runtime/cache/informer.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import { TcpProxy, delay, freshNamespace, restFor, useTestControlPlane, waitFor } from './helpers.js';

interface SecretObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  stringData?: Record<string, string>;
  data?: Record<string, string>;
}

let plane: SharedControlPlane;
let admin: RestClient;
useTestControlPlane((started) => ({ plane, admin } = started));

/** An informer on Secrets of one namespace, through a proxy, recording everything it reports. */
async function watchedSecrets(namespace: string, options: { silentWatchTimeoutMs?: number } = {}) {
  const proxy = await TcpProxy.start(plane.server);
  const rest = restFor(plane, proxy.url);
  const restarts: WatchRestartReason[] = [];
  const deletes: Array<{ name: string; finalStateUnknown: boolean; value?: string }> = [];
  const informer = new Informer<SecretObject>(new ResourceClient<SecretObject>(rest, coreV1SecretType, namespace), {
    name: 'secrets',
    initialBackoffMs: 100,
    maxBackoffMs: 500,
    silentWatchTimeoutMs: options.silentWatchTimeoutMs,
    onWatchRestart: (reason) => restarts.push(reason),
  });
  informer.addEventHandler({
    onDelete: (object, info) =>
      deletes.push({
        name: object.metadata!.name!,
        finalStateUnknown: info.finalStateUnknown,
        value: object.data?.v && Buffer.from(object.data.v, 'base64').toString(),
      }),
  });
  informer.start();
  await informer.waitForSync();
  return {
    proxy,
    informer,
    restarts,
    deletes,
    async close() {
      await informer.stop();
      rest.close();
      await proxy.close();
    },
  };
}

async function serverState(namespace: string): Promise<Record<string, string>> {
  const list = await new ResourceClient(admin, coreV1SecretType, namespace).list();
  return Object.fromEntries(list.items.map((s) => [s.metadata!.name!, s.metadata!.resourceVersion!]));
}

function cacheState(informer: Informer<SecretObject>): Record<string, string> {
  return Object.fromEntries(informer.lister.list().map((s) => [s.metadata!.name!, s.metadata!.resourceVersion!]));
}

describe('informer against a real apiserver', () => {
  it('follows creates, updates and deletes and keeps the namespace index', async () => {
    const ns = await freshNamespace(admin, 'inf-basic');
    const client = new ResourceClient(admin, coreV1SecretType, ns);
    await client.create({ metadata: { name: 'before' }, stringData: { v: '1' } });
    const watched = await watchedSecrets(ns);
    try {
      expect(watched.informer.lister.get(ns, 'before')).toBeDefined();
      await client.create({ metadata: { name: 'after' }, stringData: { v: '1' } });
      await client.patch('before', { type: 'merge', patch: { stringData: { v: '2' } } });
      await client.delete('after');
      await waitFor(
        async () => JSON.stringify(cacheState(watched.informer)) === JSON.stringify(await serverState(ns)),
        10_000,
        'cache = server',
      );
      expect(watched.informer.lister.list({ namespace: ns }).map((s) => s.metadata!.name)).toEqual(['before']);
      expect(watched.deletes).toEqual([{ name: 'after', finalStateUnknown: false, value: '1' }]);
    } finally {
      await watched.close();
    }
  });

  it('reaches the right state after the connection to the apiserver is reset mid-watch and refused for a while', async () => {
    const ns = await freshNamespace(admin, 'inf-restart');
    const client = new ResourceClient(admin, coreV1SecretType, ns);
    for (const name of ['a', 'b', 'c']) await client.create({ metadata: { name }, stringData: { v: '1' } });
    const watched = await watchedSecrets(ns);
    try {
      watched.proxy.cut();
      // Changes the informer cannot see while its apiserver is unreachable.
      await client.delete('a');
      await client.patch('b', { type: 'merge', patch: { stringData: { v: '2' } } });
      await client.create({ metadata: { name: 'd' }, stringData: { v: '1' } });
      await delay(1500);
      watched.proxy.restore();
      await waitFor(
        async () => JSON.stringify(cacheState(watched.informer)) === JSON.stringify(await serverState(ns)),
        15_000,
        'cache = server',
      );
      expect(watched.restarts).toContain('error');
      // The re-watch from the last resourceVersion replays the delete with its final state.
      expect(watched.deletes).toEqual([{ name: 'a', finalStateUnknown: false, value: '1' }]);
    } finally {
      await watched.close();
    }
  });

  it('relists after 410 Gone and reports objects deleted meanwhile with their last known state', async () => {
    const ns = await freshNamespace(admin, 'inf-gone');
    const client = new ResourceClient(admin, coreV1SecretType, ns);
    for (const name of ['a', 'b']) await client.create({ metadata: { name }, stringData: { v: 'last-seen' } });
    const watched = await watchedSecrets(ns);
    try {
      watched.proxy.cut();
      await client.delete('a');
      await client.create({ metadata: { name: 'c' }, stringData: { v: '1' } });
      await client.patch('b', { type: 'merge', patch: { stringData: { v: '2' } } });
      // Make the informer's resourceVersion too old: its re-watch must get 410.
      await plane.compactEtcd();
      watched.proxy.restore();
      await waitFor(
        async () => JSON.stringify(cacheState(watched.informer)) === JSON.stringify(await serverState(ns)),
        15_000,
        'cache = server',
      );
      expect(watched.restarts).toContain('gone');
      expect(watched.deletes).toEqual([{ name: 'a', finalStateUnknown: true, value: 'last-seen' }]);
    } finally {
      await watched.close();
    }
  });

  it('detects a silent watch and replaces it', async () => {
    const ns = await freshNamespace(admin, 'inf-silent');
    const client = new ResourceClient(admin, coreV1SecretType, ns);
    const watched = await watchedSecrets(ns, { silentWatchTimeoutMs: 1500 });
    try {
      await waitFor(() => watched.proxy.connections > 0, 5000, 'watch connection');
      watched.proxy.freeze();
      await client.create({ metadata: { name: 'during-silence' }, stringData: { v: '1' } });
      await waitFor(
        () => watched.informer.lister.get(ns, 'during-silence'),
        10_000,
        'object created during the silence',
      );
      expect(watched.restarts).toContain('silent');
    } finally {
      await watched.close();
    }
  });
});
