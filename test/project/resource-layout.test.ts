import { describe, expect, it } from 'vitest';
import * as os from 'node:os';
import * as path from 'node:path';
import { kindModulesOf, nameKindInShardingExample } from '../../src/project/resource-layout.js';
import { VirtualTree } from '../../src/scaffold/tree.js';

describe('kindModulesOf', () => {
  it('names the client and types beside the recorded types file, from the importing file', () => {
    const imported = {
      group: 'cert-manager',
      version: 'v1',
      kind: 'Issuer',
      path: 'api/cert-manager.io/v1/issuer.types.ts',
    };
    expect(kindModulesOf(imported, '../../')).toEqual({
      descriptorModule: '../../api/cert-manager.io/v1/issuer.client.js',
      typesModule: '../../api/cert-manager.io/v1/issuer.types.js',
    });
    expect(kindModulesOf(imported, '../../../../').typesModule).toBe(
      '../../../../api/cert-manager.io/v1/issuer.types.js',
    );
  });

  it('falls back to where create api scaffolds the types when PROJECT records no path', () => {
    expect(kindModulesOf({ group: 'cache', version: 'v1alpha1', kind: 'RedisCluster' }, '../../../')).toEqual({
      descriptorModule: '../../../api/cache/v1alpha1/rediscluster.client.js',
      typesModule: '../../../api/cache/v1alpha1/rediscluster.types.js',
    });
  });
});

describe('nameKindInShardingExample', () => {
  const unnamed = [
    '    // ("Sharding across replicas" in the kop book; keep leader election on, raise the replicas),',
    "    // with the kind's descriptor from its client module (`kop create api` names its first kind here):",
    "    // sharding: { name: 'demo', types: [myKindType] },",
    '',
  ].join('\n');
  const treeWith = (main: string): VirtualTree => {
    const tree = new VirtualTree(path.join(os.tmpdir(), 'kop-no-such-project'));
    tree.write('src/main.ts', main);
    return tree;
  };

  it("names the first kind and its client module, from src/main.ts's folder; later kinds leave it", async () => {
    const tree = treeWith(unnamed);
    await nameKindInShardingExample(tree, { group: 'cache', version: 'v1alpha1', kind: 'RedisCluster' });
    const named = [
      '    // ("Sharding across replicas" in the kop book; keep leader election on, raise the replicas),',
      "    // with import { redisClusterType } from '../api/cache/v1alpha1/rediscluster.client.js':",
      "    // sharding: { name: 'demo', types: [redisClusterType] },",
      '',
    ].join('\n');
    expect(await tree.read('src/main.ts')).toBe(named);
    await nameKindInShardingExample(tree, { group: 'cache', version: 'v1', kind: 'Memcached' });
    expect(await tree.read('src/main.ts')).toBe(named);
  });

  it('leaves an example the user edited as it is', async () => {
    const edited = unnamed.replace('myKindType', 'myKindType, otherType');
    const tree = treeWith(edited);
    await nameKindInShardingExample(tree, { group: 'cache', version: 'v1alpha1', kind: 'RedisCluster' });
    expect(await tree.read('src/main.ts')).toBe(edited);
  });
});
