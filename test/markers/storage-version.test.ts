import { describe, expect, it } from 'vitest';
import type { ProjectResource } from '../../src/project/project-file.js';
import { VirtualTree } from '../../src/scaffold/tree.js';
import { storageVersionMarks, storageVersionOf } from '../../src/markers/storage-version.js';

const entry = (version: string, api = true): ProjectResource => ({
  group: 'cache',
  version,
  kind: 'RedisCluster',
  plural: 'redisclusters',
  domain: 'example.com',
  ...(api ? { api: { crdVersion: 'v1', namespaced: true } } : {}),
});

const types = (markers: string[]) =>
  `/**\n * RedisCluster is the root type.\n${markers.map((m) => ` * ${m}\n`).join('')} */\nexport interface RedisCluster {\n  spec: object;\n}\n`;

/** A tree over a folder that is never read: every file is staged. */
function treeWith(files: Record<string, string>): VirtualTree {
  const tree = new VirtualTree('/nonexistent-kop-test-root');
  for (const [file, text] of Object.entries(files)) tree.write(file, text);
  return tree;
}

describe('storage version of a kind', () => {
  it('is the first version marked +kubebuilder:storageversion, else the first version', async () => {
    const versions = [entry('v1alpha1'), entry('v1'), entry('v2')];
    const marked = treeWith({
      'api/cache/v1alpha1/rediscluster.types.ts': types(['+kubebuilder:object:root=true']),
      'api/cache/v1/rediscluster.types.ts': types(['+kubebuilder:object:root=true', '+kubebuilder:storageversion']),
      'api/cache/v2/rediscluster.types.ts': types(['+kubebuilder:object:root=true']),
    });
    expect(await storageVersionOf(marked, versions)).toEqual({ hub: 'v1', marked: true });
    const unmarked = treeWith({
      'api/cache/v1alpha1/rediscluster.types.ts': types([]),
      'api/cache/v1/rediscluster.types.ts': types([]),
    });
    expect(await storageVersionOf(unmarked, versions)).toEqual({ hub: 'v1alpha1', marked: false });
  });

  it('lists every marked version with the marker line, and skips versions without scaffolded types', async () => {
    const tree = treeWith({
      'api/cache/v1/rediscluster.types.ts': types(['+kubebuilder:storageversion']),
      'api/cache/v2/rediscluster.types.ts': types(['+kubebuilder:storageversion']),
      'api/cache/v3/rediscluster.types.ts': types(['+kubebuilder:storageversion']),
    });
    const marks = await storageVersionMarks(tree, [entry('v1'), entry('v2'), entry('v3', false)]);
    expect(marks.map((m) => [m.resource.version, m.marker.location.file, m.marker.location.line])).toEqual([
      ['v1', 'api/cache/v1/rediscluster.types.ts', 3],
      ['v2', 'api/cache/v2/rediscluster.types.ts', 3],
    ]);
  });
});
