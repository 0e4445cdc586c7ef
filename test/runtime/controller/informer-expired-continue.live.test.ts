import { describe, expect, it } from 'vitest';
import type { SharedControlPlane } from '../../helpers/shared-control-plane.js';
import type { ObjectList } from '../../../src/runtime/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import type { ListOptions, WatchEvent, WatchOptions } from '../../../src/runtime/client/resource/options.js';
import type { ListerWatcher } from '../../../src/runtime/cache/informer.js';
import { coreV1SecretType } from '../../../src/runtime/builtin/index.js';
import { Informer } from '../../../src/runtime/cache/informer.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import { freshNamespace, useTestControlPlane, waitFor } from './helpers.js';

interface SecretObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  stringData?: Record<string, string>;
  data?: Record<string, string>;
}

let plane: SharedControlPlane;
let admin: RestClient;
// Secrets bypass the watch cache there, so every page reads etcd and compaction expires continue tokens.
useTestControlPlane((started) => ({ plane, admin } = started));

/**
 * The real Secrets client, except that after the first page of every paged list it changes a
 * Secret and compacts etcd: the worst case of slow pages on a busy cluster, where each attempt to
 * page from the start expires again. Records every list call.
 */
class CompactingBetweenPages implements ListerWatcher<SecretObject> {
  readonly lists: string[] = [];
  compactedAt = 0;
  private writes = 0;

  constructor(
    private readonly secrets: ResourceClient<SecretObject>,
    private readonly plane: SharedControlPlane,
  ) {}

  async list(options: ListOptions): Promise<ObjectList<SecretObject>> {
    this.lists.push(options.limit ? `limit=${options.limit}${options.continue ? ' continue' : ''}` : 'no limit');
    const page = await this.secrets.list(options);
    if (options.limit && !options.continue && page.metadata.continue) {
      await this.secrets.patch('secret-00', { type: 'merge', patch: { stringData: { v: `write-${++this.writes}` } } });
      this.compactedAt = await this.plane.compactEtcd();
    }
    return page;
  }

  watch(options: WatchOptions): AsyncIterable<WatchEvent<SecretObject>> {
    return this.secrets.watch(options);
  }
}

describe('informer whose list meets an expired continue token', () => {
  it('ends synced after exactly one full list, with its selector and transform, then watches from that list', async () => {
    const namespace = await freshNamespace(admin, 'expired-continue');
    const secrets = new ResourceClient<SecretObject>(admin, coreV1SecretType, namespace);
    for (let i = 0; i < 30; i++)
      await secrets.create({
        metadata: { name: `secret-${String(i).padStart(2, '0')}`, labels: { set: 'cached' } },
        stringData: { v: '0' },
      });
    for (let i = 0; i < 3; i++) await secrets.create({ metadata: { name: `other-${i}` } });

    const source = new CompactingBetweenPages(secrets, plane);
    const informer = new Informer<SecretObject>(source, {
      name: 'secrets',
      listPageSize: 5,
      labelSelector: 'set=cached',
      transform: (s) => ({
        ...s,
        metadata: { ...s.metadata, annotations: { ...s.metadata?.annotations, transformed: 'yes' } },
      }),
      initialBackoffMs: 100,
      maxBackoffMs: 500,
    });
    informer.start();
    try {
      // Paging from the start again after the 410 would expire the same way every time and never sync.
      await informer.waitForSync(AbortSignal.timeout(30_000));
      expect(source.lists).toEqual(['limit=5', 'limit=5 continue', 'no limit']);

      const server = await secrets.list({ labelSelector: 'set=cached' });
      const byName = (items: SecretObject[]) =>
        Object.fromEntries(items.map((s) => [s.metadata!.name!, s.metadata!.resourceVersion!]));
      expect(Object.keys(byName(informer.lister.list()))).toHaveLength(30);
      expect(byName(informer.lister.list())).toEqual(byName(server.items));
      // The write made between the pages is in the cache: the full list is the current state.
      expect(informer.lister.get(namespace, 'secret-00')?.data?.v).toBe(Buffer.from('write-1').toString('base64'));
      expect(informer.lister.list().every((s) => s.metadata?.annotations?.transformed === 'yes')).toBe(true);
      expect(Number(informer.lastSyncResourceVersion)).toBeGreaterThanOrEqual(source.compactedAt);

      // The watch runs from the full list's resourceVersion: a later change arrives without a relist.
      const changed = await secrets.patch('secret-29', { type: 'merge', patch: { stringData: { v: 'after-sync' } } });
      await waitFor(
        () =>
          informer.lister.get(namespace, 'secret-29')?.metadata?.resourceVersion === changed.metadata?.resourceVersion,
        10_000,
        'the watched change',
      );
      expect(informer.lister.get(namespace, 'secret-29')?.metadata?.annotations?.transformed).toBe('yes');
      expect(source.lists).toHaveLength(3);
    } finally {
      await informer.stop();
    }
  });
});
