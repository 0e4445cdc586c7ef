// Storage-version migration on a real control plane: objects written while v1 was the storage
// version are rewritten at v2 (etcd itself shows it), v1 leaves status.storedVersions, the CRD
// then drops v1, and every object reads back whole. An object the apiserver refuses to rewrite
// keeps v1 stored (with the count and the reason), and a stopped run goes on where it stopped.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import type { RestRequest } from '../../../src/runtime/client/rest/rest-client.js';
import { ApiError, isNotFound } from '../../../src/runtime/index.js';
import {
  migrateStorageVersion,
  MIGRATION_ANNOTATION,
  type StorageMigrationProgress,
} from '../../../src/runtime/migration/storage-version-migration.js';
import type { ControlPlane } from '../../../src/testing/index.js';
import { refuseUpdatesOfLabelled } from '../../helpers/admission-policy.js';
import { startControlPlane } from '../../../src/testing/index.js';
import {
  CRD_NAME,
  CRD_PATH,
  GROUP,
  createGadgets,
  createNamespace,
  expected,
  gadgetCrd,
  readBack,
  setVersions,
  storedApiVersions,
} from './helpers.js';

let plane: ControlPlane;
let rest: RestClient;
beforeAll(async () => {
  // Without the watch cache every page is read from etcd, so compacting etcd expires a continue
  // token (the cache would serve the page from its own snapshot); the rest is the same either way.
  plane = await startControlPlane({ apiServerArgs: ['--watch-cache=false'] });
  rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
  await createNamespace(rest, 'one');
  await createNamespace(rest, 'two');
});
afterAll(async () => {
  rest?.close();
  await plane?.stop();
});

beforeEach(async () => {
  // Each test starts from the CRD at v1 only, with no objects.
  try {
    await rest.delete(CRD_PATH);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  for (let i = 0; i < 300; i++) {
    try {
      await rest.get(CRD_PATH);
    } catch (err) {
      if (isNotFound(err)) break;
      throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await plane.installCRDs(gadgetCrd(['v1'], 'v1'));
});

interface Crd {
  metadata: { annotations?: Record<string, string> };
  spec: { versions: Array<{ name: string }> };
  status: { storedVersions: string[] };
}

describe('migrateStorageVersion', () => {
  it('rewrites every object at the storage version, prunes v1, and the CRD can then drop v1 with nothing lost', async () => {
    const made = [...(await createGadgets(rest, 'one', 12)), ...(await createGadgets(rest, 'two', 11, 100))];
    await setVersions(rest, ['v1', 'v2'], 'v2');
    // Written before the move: etcd holds them at v1, and the CRD says v1 is stored.
    expect(new Set((await storedApiVersions(plane)).values())).toEqual(new Set([`${GROUP}/v1`]));
    expect((await rest.get<Crd>(CRD_PATH)).status.storedVersions).toEqual(['v1', 'v2']);
    // The apiserver refuses to drop a version still in storedVersions: the reason for all this.
    await expect(setVersions(rest, ['v2'], 'v2')).rejects.toThrow(/storedVersions/);

    const seen: StorageMigrationProgress[] = [];
    const result = await migrateStorageVersion(rest, CRD_NAME, { pageSize: 5, onProgress: (p) => void seen.push(p) });
    expect(result).toMatchObject({
      crd: CRD_NAME,
      storageVersion: 'v2',
      rewritten: 23,
      unchanged: 0,
      gone: 0,
      failed: 0,
      total: 23,
      resumed: false,
      pruned: ['v1'],
      storedVersions: ['v2'],
    });
    expect(result.refusal).toBeUndefined();
    // Progress after each of the 5 pages, after a first report at the start.
    expect(seen.map((p) => p.rewritten)).toEqual([0, 5, 10, 15, 20, 23]);
    expect(seen.at(-1)?.lastObject).toBe('two/gadget-0110');

    const stored = await storedApiVersions(plane);
    expect(stored.size).toBe(23);
    expect(new Set(stored.values())).toEqual(new Set([`${GROUP}/v2`]));
    const crd = await rest.get<Crd>(CRD_PATH);
    expect(crd.status.storedVersions).toEqual(['v2']);
    expect(crd.metadata.annotations?.[MIGRATION_ANNOTATION]).toBeUndefined();

    // v1 can go now, and every object reads back whole.
    await setVersions(rest, ['v2'], 'v2');
    expect((await rest.get<Crd>(CRD_PATH)).spec.versions.map((v) => v.name)).toEqual(['v2']);
    expect(await readBack(rest, 'v2')).toEqual(expected(made));

    // Run again: nothing else is stored, so nothing is listed or written.
    const again = await migrateStorageVersion(rest, CRD_NAME);
    expect(again).toMatchObject({ rewritten: 0, unchanged: 0, pruned: [], storedVersions: ['v2'] });
  });

  it('a stopped run saves its progress on the CRD, and the next run goes on from there', async () => {
    const made = await createGadgets(rest, 'one', 20);
    await setVersions(rest, ['v1', 'v2'], 'v2');
    const stop = new AbortController();
    await expect(
      migrateStorageVersion(rest, CRD_NAME, {
        pageSize: 4,
        signal: stop.signal,
        onProgress: (p) => {
          if (p.rewritten === 8) stop.abort(new Error('stopped by the test'));
        },
      }),
    ).rejects.toThrow('stopped by the test');
    const saved = JSON.parse((await rest.get<Crd>(CRD_PATH)).metadata.annotations![MIGRATION_ANNOTATION]!) as {
      lastObject: string;
      continue: string;
      rewritten: number;
    };
    expect(saved).toMatchObject({ lastObject: 'one/gadget-0007', rewritten: 8, storageVersion: 'v2' });
    expect(saved.continue).toEqual(expect.any(String));
    // Half done: the first two pages are at v2, the rest still at v1.
    const half = await storedApiVersions(plane);
    expect([...half.values()].filter((v) => v === `${GROUP}/v2`)).toHaveLength(8);

    const seen: StorageMigrationProgress[] = [];
    const result = await migrateStorageVersion(rest, CRD_NAME, { pageSize: 4, onProgress: (p) => void seen.push(p) });
    // Only the pages not done are listed again: the first report already counts the 8.
    expect(seen.map((p) => p.rewritten)).toEqual([8, 12, 16, 20]);
    expect(result).toMatchObject({ resumed: true, rewritten: 20, failed: 0, pruned: ['v1'], storedVersions: ['v2'] });
    expect(new Set((await storedApiVersions(plane)).values())).toEqual(new Set([`${GROUP}/v2`]));
    await setVersions(rest, ['v2'], 'v2');
    expect(await readBack(rest, 'v2')).toEqual(expected(made));
  });

  it('goes on from the same object when etcd compacted past its continue token', async () => {
    const made = await createGadgets(rest, 'one', 12);
    await setVersions(rest, ['v1', 'v2'], 'v2');
    const messages: string[] = [];
    const logger = {
      debug: () => {},
      info: (message: string) => void messages.push(message),
      warn: (message: string) => void messages.push(message),
      error: (message: string) => void messages.push(message),
      child: () => logger,
    };
    let compacted = false;
    const seen: StorageMigrationProgress[] = [];
    // Compacting etcd after the first page makes the token the apiserver gave for the second one too old.
    const result = await migrateStorageVersion(rest, CRD_NAME, {
      pageSize: 4,
      logger,
      onProgress: async (p) => {
        seen.push(p);
        if (p.rewritten === 4 && !compacted) {
          compacted = true;
          await plane.compactEtcd();
        }
      },
    });
    expect(compacted).toBe(true);
    expect(messages).toContain('continue token expired; going on from the same object');
    expect(result).toMatchObject({ rewritten: 12, unchanged: 0, failed: 0, pruned: ['v1'] });
    expect(seen.map((p) => p.rewritten)).toEqual([0, 4, 8, 12]);
    expect(new Set((await storedApiVersions(plane)).values())).toEqual(new Set([`${GROUP}/v2`]));
    expect(await readBack(rest, 'v2')).toEqual(expected(made));
  });

  it('keeps v1 stored while an object cannot be rewritten, says how many and why, and finishes once it can', async () => {
    await createGadgets(rest, 'one', 6);
    await rest.patch(
      `/apis/${GROUP}/v1/namespaces/one/gadgets/gadget-0002`,
      { metadata: { labels: { frozen: 'true' } } },
      'application/merge-patch+json',
    );
    await rest.patch(
      `/apis/${GROUP}/v1/namespaces/one/gadgets/gadget-0004`,
      { metadata: { labels: { frozen: 'true' } } },
      'application/merge-patch+json',
    );
    await setVersions(rest, ['v1', 'v2'], 'v2');
    // An admission policy that refuses every update of a frozen gadget: the apiserver's own refusal.
    const unfreeze = await refuseUpdatesOfLabelled(rest, {
      name: 'frozen-gadgets',
      group: GROUP,
      resource: 'gadgets',
      label: 'frozen',
      message: 'gadget is frozen',
      probePath: `/apis/${GROUP}/v2/namespaces/one/gadgets/gadget-0004`,
    });
    try {
      const refused = await migrateStorageVersion(rest, CRD_NAME, { pageSize: 4 });
      expect(refused).toMatchObject({ rewritten: 4, failed: 2, pruned: [], storedVersions: ['v1', 'v2'] });
      expect(refused.failures.map((f) => `${f.namespace}/${f.name}`)).toEqual(['one/gadget-0002', 'one/gadget-0004']);
      expect(refused.failures[0]!.reason).toContain('gadget is frozen');
      expect(refused.refusal).toBe(
        `2 objects of ${CRD_NAME} could not be rewritten at v2, so v1 may still be stored and stay in status.storedVersions`,
      );
      expect((await rest.get<Crd>(CRD_PATH)).status.storedVersions).toEqual(['v1', 'v2']);
      const stored = await storedApiVersions(plane);
      expect(stored.get('one/gadget-0002')).toBe(`${GROUP}/v1`);
      expect(stored.get('one/gadget-0001')).toBe(`${GROUP}/v2`);
    } finally {
      await unfreeze();
    }
    // Once the policy is gone, the next run retries the two it named, walks nothing again, and prunes.
    let finished;
    for (let i = 0; ; i++) {
      finished = await migrateStorageVersion(rest, CRD_NAME, { pageSize: 4 });
      if (finished.failed === 0 || i > 50) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(finished).toMatchObject({ resumed: true, failed: 0, pruned: ['v1'], storedVersions: ['v2'] });
    expect(new Set((await storedApiVersions(plane)).values())).toEqual(new Set([`${GROUP}/v2`]));
  });

  it('an object written between the list and its rewrite (409) is read again and rewritten, and that write is kept', async () => {
    const made = await createGadgets(rest, 'one', 6);
    await setVersions(rest, ['v1', 'v2'], 'v2');
    const config = loadClientConfig({ kubeconfig: plane.kubeconfigPath });
    const listPath = `/apis/${GROUP}/v2/gadgets`;
    const objectPath = (version: string, name: string) => `/apis/${GROUP}/${version}/namespaces/one/gadgets/${name}`;
    const puts: string[] = [];
    let raced = false;
    /**
     * The migration's client, with another writer in the gap between the list and the rewrites:
     * once the first page is listed (and before the migration sees it), an old client still on v1
     * updates one listed object and deletes another, so the migration holds stale copies of both.
     */
    class RacedClient extends RestClient {
      override async request<T>(req: RestRequest): Promise<T> {
        if (req.method !== 'PUT') {
          const answer = await super.request<T>(req);
          if (!raced && req.method === 'GET' && req.path === listPath) {
            raced = true;
            await rest.patch(
              objectPath('v1', 'gadget-0002'),
              { spec: { size: 2002, nested: { note: 'written meanwhile' } } },
              'application/merge-patch+json',
            );
            await rest.delete(objectPath('v1', 'gadget-0004'));
          }
          return answer;
        }
        const name = req.path.split('/').at(-1)!;
        try {
          const answer = await super.request<T>(req);
          puts.push(`${name} ok`);
          return answer;
        } catch (err) {
          puts.push(`${name} ${err instanceof ApiError ? err.code : String(err)}`);
          throw err;
        }
      }
    }
    const raceClient = new RacedClient(config);
    try {
      const result = await migrateStorageVersion(raceClient, CRD_NAME, { pageSize: 10 });
      expect(raced).toBe(true);
      // The updated object's rewrite met a 409, was read again and put again; the deleted one is counted gone.
      expect(puts).toEqual([
        'gadget-0000 ok',
        'gadget-0001 ok',
        'gadget-0002 409',
        'gadget-0002 ok',
        'gadget-0003 ok',
        'gadget-0004 404',
        'gadget-0005 ok',
      ]);
      expect(result).toMatchObject({ rewritten: 5, gone: 1, failed: 0, pruned: ['v1'], storedVersions: ['v2'] });
    } finally {
      raceClient.close();
    }
    const stored = await storedApiVersions(plane);
    expect(stored.size).toBe(5);
    expect(new Set(stored.values())).toEqual(new Set([`${GROUP}/v2`]));
    // Every object reads back whole, and the write made meanwhile is not undone by the migration's stale copy.
    await setVersions(rest, ['v2'], 'v2');
    const want = expected(made.filter((g) => g.metadata.name !== 'gadget-0004'));
    const touched = made.find((g) => g.metadata.name === 'gadget-0002')!;
    want.set('one/gadget-0002', {
      name: 'gadget-0002',
      namespace: 'one',
      spec: { ...touched.spec, size: 2002, nested: { note: 'written meanwhile' } },
      status: touched.status,
    });
    expect(await readBack(rest, 'v2')).toEqual(want);
  });
});
