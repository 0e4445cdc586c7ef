// A lister hands out copies, as controller-runtime's cache reader does: changing what it returned
// never changes the cache or its indexes.
import { describe, expect, it } from 'vitest';
import type { KubernetesObject } from '../../../src/runtime/index.js';
import { Indexer } from '../../../src/runtime/cache/indexer.js';
import { Lister } from '../../../src/runtime/cache/lister.js';

type Labelled = KubernetesObject & {
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  status?: { phase?: string };
};

describe('lister copies', () => {
  it('objects from get, list and byIndex can be changed without touching the cache or its indexes', () => {
    const indexer = new Indexer<Labelled>({ byApp: (o) => [o.metadata.labels.app!] });
    indexer.upsert({ metadata: { name: 'a', namespace: 'n1', labels: { app: 'web' } } });
    const lister = new Lister(indexer);

    // A reconciler that edits the object it read, then fails to write it.
    const got = lister.get('n1', 'a')!;
    got.status = { phase: 'Ready' };
    got.metadata.labels.app = 'db';
    lister.list()[0]!.metadata.namespace = 'elsewhere';
    lister.byIndex('byApp', 'web')[0]!.metadata.name = 'renamed';

    expect(lister.get('n1', 'a')).toEqual({ metadata: { name: 'a', namespace: 'n1', labels: { app: 'web' } } });
    expect(lister.list({ labels: { app: 'db' } })).toEqual([]);
    // The next change from the watch re-indexes from the cached object, not from the edited copy.
    indexer.upsert({ metadata: { name: 'a', namespace: 'n1', labels: { app: 'api' } } });
    expect(lister.byIndex('byApp', 'web')).toEqual([]);
    expect(lister.byIndex('byApp', 'db')).toEqual([]);
    expect(lister.byIndex('byApp', 'api').map((o) => o.metadata.name)).toEqual(['a']);
  });
});
