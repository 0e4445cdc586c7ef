import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../../src/testing/index.js';
import { ApiError, type KubernetesObject, type ObjectList } from '../../../src/runtime/index.js';
import { RestClient, isGone, loadClientConfig } from '../../../src/runtime/client/index.js';
import { coreV1ConfigMapType, coreV1NamespaceType } from '../../../src/runtime/builtin/index.js';
import { ResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import { type ListOptions } from '../../../src/runtime/client/resource/options.js';

interface ConfigMapObject extends KubernetesObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

/** A ConfigMap client that records the list calls it makes and can act between the first and second page. */
class RecordingConfigMaps extends ResourceClient<ConfigMapObject> {
  readonly calls: ListOptions[] = [];
  /** metadata.resourceVersion of each page returned. */
  readonly versions: string[] = [];
  afterFirstPage: (() => Promise<void>) | undefined;

  override async list(options: ListOptions = {}): Promise<ObjectList<ConfigMapObject>> {
    this.calls.push(options);
    const page = await super.list(options);
    this.versions.push(page.metadata.resourceVersion ?? '');
    if (this.calls.length === 1) await this.afterFirstPage?.();
    return page;
  }

  sent(): string[] {
    return this.calls.map((o) =>
      [o.limit ? `limit=${o.limit}` : 'no limit', o.continue ? 'continue' : ''].filter(Boolean).join(' '),
    );
  }
}

let plane: ControlPlane;
let rest: RestClient;

beforeAll(async () => {
  // With the watch cache, kube-apiserver 1.36 serves continued pages from its own snapshots and
  // never answers 410 after a compaction; without it for ConfigMaps, every page reads etcd.
  plane = await startControlPlane({ apiServerArgs: ['--watch-cache-sizes=configmaps#0'] });
  rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
});

afterAll(async () => {
  rest?.close();
  await plane?.stop();
});

let namespaceCounter = 0;
/** A namespace holding ConfigMaps cm-00..cm-29, each with data v=0 and label set=paged. */
async function namespaceWith30ConfigMaps(): Promise<string> {
  const namespace = `paged-${++namespaceCounter}`;
  await new ResourceClient(rest, coreV1NamespaceType).create({ metadata: { name: namespace } });
  const cms = new ResourceClient(rest, coreV1ConfigMapType, namespace);
  for (let i = 0; i < 30; i++)
    await cms.create({ metadata: { name: cmName(i), labels: { set: 'paged' } }, data: { v: '0' } });
  return namespace;
}

function cmName(i: number): string {
  return `cm-${String(i).padStart(2, '0')}`;
}

/** Changes the set while a paged list is under way: updates three, deletes one, adds one. */
async function modify(namespace: string): Promise<void> {
  const cms = new ResourceClient(rest, coreV1ConfigMapType, namespace);
  for (const i of [1, 15, 25]) await cms.patch(cmName(i), { type: 'merge', patch: { data: { v: '1' } } });
  await cms.delete(cmName(20));
  await cms.create({ metadata: { name: 'cm-30', labels: { set: 'paged' } }, data: { v: '1' } });
}

function contents(list: ObjectList<ConfigMapObject>): Record<string, string> {
  return Object.fromEntries(
    list.items.map((cm) => [cm.metadata!.name!, `${cm.data?.v}@${cm.metadata!.resourceVersion}`]),
  );
}

describe('listComplete against a real apiserver', () => {
  it('a continued page after compaction is 410 for list(); listComplete returns the current state from one full list', async () => {
    const namespace = await namespaceWith30ConfigMaps();
    const cms = new ResourceClient(rest, coreV1ConfigMapType, namespace);

    // (a) What listComplete guards against: a plain continued list after compaction.
    const firstPage = await cms.list({ limit: 10 });
    expect(firstPage.items).toHaveLength(10);
    await modify(namespace);
    await plane.compactEtcd();
    const expired = await cms.list({ limit: 10, continue: firstPage.metadata.continue }).catch((e: unknown) => e);
    expect(isGone(expired)).toBe(true);
    expect((expired as ApiError).code).toBe(410);
    expect((expired as ApiError).message).toContain('continue parameter is too old');

    // (b) The same sequence inside listComplete: page 1, then the set changes and etcd compacts.
    const recording = new RecordingConfigMaps(rest, coreV1ConfigMapType, namespace);
    let compactedAt = 0;
    recording.afterFirstPage = async () => {
      await cms.patch(cmName(2), { type: 'merge', patch: { data: { v: '2' } } });
      compactedAt = await plane.compactEtcd();
    };
    const expiries: ApiError[] = [];
    const list = await recording.listComplete({ limit: 10, onContinueExpired: (err) => expiries.push(err) });
    expect(recording.sent()).toEqual(['limit=10', 'limit=10 continue', 'no limit']);
    expect(expiries.map((e) => e.code)).toEqual([410]);

    const now = await cms.list();
    expect(contents(list)).toEqual(contents(now));
    expect(Object.keys(contents(list))).toHaveLength(30);
    expect(contents(list)['cm-02']).toMatch(/^2@/);
    expect(contents(list)['cm-15']).toMatch(/^1@/);
    expect(contents(list)).not.toHaveProperty('cm-20');
    expect(contents(list)).toHaveProperty('cm-30');
    // The snapshot's revision, usable for a watch, not the expired first page's.
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(compactedAt);
    expect(list.metadata.continue).toBeUndefined();
  });

  it('without compaction, joins the pages at the first page revision; across namespaces too', async () => {
    const namespace = await namespaceWith30ConfigMaps();
    const recording = new RecordingConfigMaps(rest, coreV1ConfigMapType, namespace);
    recording.afterFirstPage = async () => {
      // A change after the first page is not in the result: every page reads one revision.
      await new ResourceClient(rest, coreV1ConfigMapType, namespace).patch(cmName(25), {
        type: 'merge',
        patch: { data: { v: 'late' } },
      });
    };
    const list = await recording.listComplete({ limit: 7, labelSelector: { set: 'paged' } });
    expect(recording.sent()).toEqual(['limit=7', ...Array(4).fill('limit=7 continue')]);
    expect(list.items).toHaveLength(30);
    expect(contents(list)['cm-25']).toMatch(/^0@/);
    expect(new Set(recording.versions)).toEqual(new Set([list.metadata.resourceVersion]));

    const everywhere = await new ResourceClient(rest, coreV1ConfigMapType).listComplete({
      limit: 4,
      labelSelector: { set: 'paged' },
    });
    expect(everywhere.items.filter((cm) => cm.metadata?.namespace === namespace)).toHaveLength(30);
  });

  it('a first page whose own resourceVersion was compacted away is 410, not a silent full list', async () => {
    const namespace = await namespaceWith30ConfigMaps();
    const cms = new ResourceClient(rest, coreV1ConfigMapType, namespace);
    const old = await cms.list({ limit: 1 });
    await modify(namespace);
    await plane.compactEtcd();
    const recording = new RecordingConfigMaps(rest, coreV1ConfigMapType, namespace);
    const err = await recording
      .listComplete({ limit: 10, resourceVersion: old.metadata.resourceVersion, resourceVersionMatch: 'Exact' })
      .catch((e: unknown) => e);
    expect(isGone(err)).toBe(true);
    expect(recording.sent()).toEqual(['limit=10']);
  });
});
