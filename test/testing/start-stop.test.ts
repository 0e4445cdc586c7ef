import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startControlPlane } from '../../src/testing/index.js';
import { apiRequest, pidsMentioning } from './helpers.js';

describe('starting and stopping', () => {
  it('starts and stops twice in one process, leaving no process or folder behind', async () => {
    const servers = new Set<string>();
    for (let round = 0; round < 2; round++) {
      const plane = await startControlPlane();
      servers.add(plane.server);
      expect(pidsMentioning(plane.dir)).toHaveLength(2);
      expect((await apiRequest(plane, plane.admin, 'GET', '/api/v1/namespaces/default')).status).toBe(200);

      await plane.stop();
      await plane.stop(); // idempotent
      expect(pidsMentioning(plane.dir)).toEqual([]);
      expect(existsSync(plane.dir)).toBe(false);
      await expect(plane.addUser({ name: 'late' })).rejects.toThrow('stopped');
    }
    expect(servers.size).toBe(2);
    // Two full starts and stops: allow each its own start and stop budget on a loaded machine.
  }, 240_000);

  it('passes extra kube-apiserver flags: without the watch cache, every watch reads etcd and compaction yields 410', async () => {
    const plane = await startControlPlane({ apiServerArgs: ['--watch-cache=false'] });
    try {
      const path = '/api/v1/namespaces/default/configmaps';
      const created = await apiRequest(plane, plane.admin, 'POST', path, { metadata: { name: 'old' } });
      const oldVersion = created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
      // Compaction keeps the compacted revision itself, so two newer writes put oldVersion+1 out of reach.
      await apiRequest(plane, plane.admin, 'POST', path, { metadata: { name: 'newer' } });
      await apiRequest(plane, plane.admin, 'POST', path, { metadata: { name: 'newest' } });
      await plane.compactEtcd();
      const watch = await apiRequest(
        plane,
        plane.admin,
        'GET',
        `${path}?watch=true&resourceVersion=${oldVersion}&timeoutSeconds=1`,
      );
      const body =
        watch.status === 410
          ? watch.body
          : (watch.body.split('\n').find((line) => line.includes('"ERROR"')) ?? watch.body);
      expect(body).toContain('"code":410');
    } finally {
      await plane.stop();
    }
  });
});
