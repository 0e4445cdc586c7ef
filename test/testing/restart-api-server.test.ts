import { request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { apiRequest, pidsMentioning } from './helpers.js';

const CRD_FIXTURE = fileURLToPath(new URL('./fixtures/widgets-crd.yaml', import.meta.url));
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** Opens a watch and resolves, once it is established, with a promise of how it ends. */
function openWatch(plane: ControlPlane, path: string): Promise<{ ended: Promise<string> }> {
  const url = new URL(path, plane.server);
  return new Promise((established, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        ca: plane.caData,
        cert: plane.admin.certData,
        key: plane.admin.keyData,
      },
      (res) => {
        established({
          ended: new Promise((ended) => {
            res.on('data', () => undefined);
            res.on('end', () => ended('end'));
            res.on('error', (error) => ended(`error: ${error.message}`));
          }),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The HTTP status of GET /readyz on a new connection, or the Node error code when nothing answers. */
function reachability(plane: ControlPlane): Promise<string | number> {
  const url = new URL('/readyz', plane.server);
  return new Promise((resolve) => {
    // agent: false, so a kept-alive connection to the old process cannot answer instead.
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        agent: false,
        ca: plane.caData,
        cert: plane.admin.certData,
        key: plane.admin.keyData,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
    req.end();
  });
}

describe('stopping and starting kube-apiserver alone', () => {
  let plane: ControlPlane;

  beforeAll(async () => {
    plane = await startControlPlane();
  });

  afterAll(async () => {
    await plane?.stop();
  });

  it('restartApiServer() ends open watches and comes back on the same URL, certificates and etcd, with the objects kept', async () => {
    const created = await apiRequest(plane, plane.admin, 'POST', CONFIGMAPS, {
      metadata: { name: 'survivor' },
      data: { v: '1' },
    });
    expect(created.status).toBe(201);
    const before = pidsMentioning(plane.dir);
    const watch = await openWatch(plane, `${CONFIGMAPS}?watch=true`);

    const started = Date.now();
    await plane.restartApiServer();

    // A graceful stop ends the watch cleanly instead of waiting for it until the stop timeout.
    await expect(watch.ended).resolves.toBe('end');
    expect(Date.now() - started).toBeLessThan(15_000);
    const after = pidsMentioning(plane.dir);
    expect(after).toHaveLength(2);
    // etcd kept its pid; the apiserver is a new process.
    expect(after.filter((pid) => before.includes(pid))).toHaveLength(1);
    expect((await apiRequest(plane, plane.admin, 'GET', '/readyz')).status).toBe(200);
    const read = await apiRequest(plane, plane.admin, 'GET', `${CONFIGMAPS}/survivor`);
    expect(read.status).toBe(200);
    expect(read.json<{ data: Record<string, string> }>().data).toEqual({ v: '1' });
    // kop/testing's own connection to the apiserver works again too.
    const [crd] = await plane.installCRDs(CRD_FIXTURE);
    expect(crd!.metadata.name).toBe('widgets.testing.kop.dev');
  });

  it('stopApiServer() refuses connections until startApiServer(); force kills at once; both are no-ops when repeated', async () => {
    for (const force of [false, true]) {
      await plane.stopApiServer({ force });
      await plane.stopApiServer({ force });
      expect(pidsMentioning(plane.dir)).toHaveLength(1);
      expect(await reachability(plane)).toBe('ECONNREFUSED');
      await plane.startApiServer();
      await plane.startApiServer();
      expect(pidsMentioning(plane.dir)).toHaveLength(2);
      expect(await reachability(plane)).toBe(200);
    }
  });

  it('stop() after stopApiServer() still ends etcd and removes the folder', async () => {
    const other = await startControlPlane();
    await other.stopApiServer();
    await other.stop();
    expect(pidsMentioning(other.dir)).toEqual([]);
    await expect(other.startApiServer()).rejects.toThrow('stopped');
  });
});
