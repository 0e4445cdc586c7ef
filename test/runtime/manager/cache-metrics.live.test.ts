/**
 * What the caches hold, as an operator's users see it on a real control plane: the
 * kop_informer_* metrics, the /debug/cache endpoint behind the metrics server's TokenReview and
 * SubjectAccessReview (its own path, not granted by reading /metrics), and the memory budget's warning.
 */
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager } from '../../../src/runtime/index.js';
import type { RestClient } from '../../../src/runtime/client/index.js';
import { coreV1ConfigMapType } from '../../../src/runtime/builtin/index.js';
import type { Logger } from '../../../src/runtime/util/logger.js';
import { leaseTestControlPlane, restFor, type LeasedControlPlane } from '../controller/helpers.js';

let plane: LeasedControlPlane;
let admin: RestClient;
let manager: Manager;
let started: Promise<void>;
const namespace = 'cache-metrics';
const warnings: string[] = [];

const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message) => warnings.push(message),
  error: () => undefined,
  child: () => logger,
};

async function tokenOf(name: string): Promise<string> {
  const request = await admin.post<{ status: { token: string } }>(
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
  );
  return request.status.token;
}

/** GETs a path of the manager's metrics server (self-signed certificate). */
function get(path: string, token?: string): Promise<{ status: number; body: string; type?: string }> {
  const url = new URL(manager.metricsUrl!);
  return new Promise((resolve, reject) => {
    https
      .get(
        {
          host: url.hostname,
          port: url.port,
          path,
          headers: token ? { authorization: `Bearer ${token}` } : {},
          agent: false,
          rejectUnauthorized: false,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: res.headers['content-type'] }));
        },
      )
      .on('error', reject);
  });
}

/** The value of one sample of the exposition, by metric name and informer label. */
function sample(exposition: string, metric: string, informer: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${metric}{informer="${informer}"}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function grant(serviceAccount: string, paths: string[]): Promise<void> {
  await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: `${serviceAccount}-role` },
    rules: [{ nonResourceURLs: paths, verbs: ['get'] }],
  });
  await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: `${serviceAccount}-binding` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${serviceAccount}-role` },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
  });
}

beforeAll(async () => {
  plane = await leaseTestControlPlane();
  admin = restFor(plane);
  await admin.post('/api/v1/namespaces', { metadata: { name: namespace } });
  for (const name of ['scraper', 'debugger'])
    await admin.post(`/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  await grant('scraper', ['/metrics']);
  await grant('debugger', ['/metrics', '/debug/cache']);
  for (let i = 0; i < 40; i++)
    await admin.post(`/api/v1/namespaces/${namespace}/configmaps`, {
      metadata: { name: `cm-${i}` },
      data: { payload: 'x'.repeat(2000) },
    });
  manager = new Manager({
    rest: admin,
    namespace,
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '0',
    // 40 ConfigMaps of 2 KB pass 50 KB: the budget warns once the cache fills.
    cacheMemoryBudget: { bytes: 50_000, checkIntervalMs: 100 },
    logger,
  });
  manager.informerFor(coreV1ConfigMapType);
  started = manager.start();
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (manager.informerFor(coreV1ConfigMapType).hasSynced() && manager.metricsUrl) {
        clearInterval(poll);
        resolve();
      }
    }, 20);
    started.catch(reject);
  });
  // The budget is checked every 100 ms: let it see the full cache before the tests change it.
  for (let waited = 0; !warnings.some((w) => w.includes('cache memory budget')) && waited < 10_000; waited += 20)
    await new Promise((r) => setTimeout(r, 20));
});

afterAll(async () => {
  await manager?.stop();
  await started;
  admin?.close();
  await plane?.release();
});

describe('cache metrics and the /debug/cache endpoint', () => {
  it('exports objects, estimated bytes, relists and last sync per informer', async () => {
    const scrape = await get('/metrics', await tokenOf('scraper'));
    expect(scrape.status).toBe(200);
    const stats = manager.informerFor(coreV1ConfigMapType).stats;
    expect(sample(scrape.body, 'kop_informer_cached_objects', 'ConfigMap.core')).toBe(40);
    expect(sample(scrape.body, 'kop_informer_cached_bytes', 'ConfigMap.core')).toBe(stats.bytes);
    expect(stats.bytes).toBeGreaterThan(40 * 2000);
    expect(sample(scrape.body, 'kop_informer_relists_total', 'ConfigMap.core')).toBe(0);
    const lastSync = sample(scrape.body, 'kop_informer_last_sync_timestamp_seconds', 'ConfigMap.core')!;
    expect(Math.abs(lastSync - Date.now() / 1000)).toBeLessThan(120);
    expect(scrape.body).toContain('# TYPE kop_informer_relists_total counter');

    // The gauges follow the cache.
    await admin.delete(`/api/v1/namespaces/${namespace}/configmaps/cm-0`);
    const deadline = Date.now() + 10_000;
    let objects: number | undefined;
    while (Date.now() < deadline) {
      objects = sample(
        (await get('/metrics', await tokenOf('scraper'))).body,
        'kop_informer_cached_objects',
        'ConfigMap.core',
      );
      if (objects === 39) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(objects).toBe(39);
  });

  it('answers /debug/cache in JSON to whoever may get that path, and only them', async () => {
    expect((await get('/debug/cache')).status).toBe(401);
    // Reading /metrics does not grant the debug endpoint.
    expect((await get('/debug/cache', await tokenOf('scraper'))).status).toBe(403);
    const answer = await get('/debug/cache', await tokenOf('debugger'));
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('application/json');
    const report = JSON.parse(answer.body) as {
      informers: Array<Record<string, unknown>>;
      objects: number;
      bytes: number;
      budgetBytes: number;
      heap: { usedBytes: number; limitBytes: number };
    };
    const stats = manager.informerFor(coreV1ConfigMapType).stats;
    expect(report.informers).toEqual([
      {
        name: 'ConfigMap.core',
        objects: stats.objects,
        bytes: stats.bytes,
        relists: 0,
        lastSyncTime: new Date(stats.lastSyncTime!).toISOString(),
        lastListMethod: 'streaming',
        synced: true,
      },
    ]);
    expect(report).toMatchObject({ objects: stats.objects, bytes: stats.bytes, budgetBytes: 50_000 });
    expect(report.heap.usedBytes).toBeGreaterThan(0);
    expect(report.heap.limitBytes).toBeGreaterThan(report.heap.usedBytes);
  });

  it('warns once that the caches passed the budget, naming the informer', () => {
    const budgetWarnings = warnings.filter((w) => w.includes('cache memory budget'));
    expect(budgetWarnings).toHaveLength(1);
    expect(budgetWarnings[0]).toMatch(
      /^informer caches hold an estimated [\d.]+ KiB, over the cache memory budget of 48\.8 KiB; largest: ConfigMap\.core [\d.]+ KiB \(40 objects\)$/,
    );
  });
});
