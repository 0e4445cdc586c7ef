import { describe, expect, it } from 'vitest';
import { recordResource } from '../../src/create-api/record-resource.js';
import type { ProjectFile, ProjectResource } from '../../src/project/project-file.js';

const project = (resources: ProjectResource[]): ProjectFile => ({
  version: '3',
  layout: ['kop.dev/v1'],
  domain: 'example.com',
  projectName: 'demo',
  resources,
});

/** What `kop create api --group cache --version v1 --kind RedisCluster --resource --controller` settles. */
const RUN = {
  values: {
    group: 'cache',
    version: 'v1',
    kind: 'RedisCluster',
    plural: 'redisclusters',
    resource: true,
    controller: true,
  },
  domain: 'example.com',
  path: 'api/cache/v1/rediscluster.types.ts',
};

describe('recordResource', () => {
  it('records the default types path for a new kind, and keeps the path an existing entry has', () => {
    const fresh = project([]);
    recordResource(fresh, RUN);
    expect(fresh.resources).toEqual([
      {
        group: 'cache',
        version: 'v1',
        kind: 'RedisCluster',
        plural: 'redisclusters',
        domain: 'example.com',
        path: 'api/cache/v1/rediscluster.types.ts',
        api: { crdVersion: 'v1', namespaced: true },
        controller: true,
      },
    ]);

    // The types moved (or PROJECT came from Kubebuilder, with the Go package's path): a re-run keeps it.
    const moved = project([
      {
        group: 'cache',
        version: 'v1',
        kind: 'RedisCluster',
        plural: 'redisclusters',
        domain: 'example.com',
        path: 'api/cache/v1/redis.ts',
        api: { crdVersion: 'v1', namespaced: true },
      },
    ]);
    recordResource(moved, RUN);
    expect(moved.resources).toHaveLength(1);
    expect(moved.resources[0]).toMatchObject({ path: 'api/cache/v1/redis.ts', controller: true });
  });
});
