import { describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../src/testing/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import type { WatchRestartReason } from '../../../src/runtime/cache/informer.js';
import { coreV1ConfigMapType } from '../../../src/runtime/builtin/index.js';
import { Informer } from '../../../src/runtime/cache/informer.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import { delay, freshNamespace, restFor, useOwnTestControlPlane, waitFor } from './helpers.js';

/**
 * A real kube-apiserver restart mid-watch, through kop/testing, against the same etcd, port and certificates
 * (so on a plane of this file's own: a shared one must stay up for the next file).
 */
let plane: ControlPlane;
let admin: RestClient;
useOwnTestControlPlane((started) => ({ plane, admin } = started));

describe('informer across a kube-apiserver restart', () => {
  it.each([
    ['is killed and restarted', true],
    ['stops gracefully and restarts', false],
  ])(
    'reaches the server state after the apiserver %s mid-watch, with changes made while it was down',
    async (_how, force) => {
      const ns = await freshNamespace(admin, 'restart');
      const cms = new ResourceClient(admin, coreV1ConfigMapType, ns);
      for (const name of ['keep', 'change', 'drop']) await cms.create({ metadata: { name }, data: { v: '1' } });

      const rest = restFor(plane);
      const restarts: WatchRestartReason[] = [];
      const informer = new Informer(
        new ResourceClient<{ metadata?: { name?: string; resourceVersion?: string }; data?: Record<string, string> }>(
          rest,
          coreV1ConfigMapType,
          ns,
        ),
        {
          initialBackoffMs: 200,
          maxBackoffMs: 1000,
          onWatchRestart: (reason) => restarts.push(reason),
        },
      );
      informer.start();
      await informer.waitForSync();

      // force: killed hard, like a crashed or OOM-killed apiserver, so its watches just break;
      // otherwise a graceful stop, which ends the watches cleanly.
      await plane.restartApiServer({ force });
      // Changes while the informer's watch is gone, written as soon as the new apiserver answers.
      await waitFor(async () => (await cms.list()).items.length === 3, 60_000, 'restarted apiserver');
      await cms.delete('drop');
      await cms.patch('change', { type: 'merge', patch: { data: { v: '2' } } });
      await cms.create({ metadata: { name: 'new' }, data: { v: '1' } });

      const server = async () =>
        Object.fromEntries((await cms.list()).items.map((c) => [c.metadata!.name!, c.metadata!.resourceVersion!]));
      const cached = () =>
        Object.fromEntries(informer.lister.list().map((c) => [c.metadata!.name!, c.metadata!.resourceVersion!]));
      await waitFor(async () => JSON.stringify(cached()) === JSON.stringify(await server()), 30_000, 'cache = server');
      expect(informer.lister.get(ns, 'change')?.data).toEqual({ v: '2' });
      expect(restarts.length).toBeGreaterThan(0);
      await delay(100);
      await informer.stop();
      rest.close();
    },
  );
});
