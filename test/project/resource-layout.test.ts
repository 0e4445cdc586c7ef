import { describe, expect, it } from 'vitest';
import { kindModulesOf } from '../../src/project/resource-layout.js';

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
