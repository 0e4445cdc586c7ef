// A list of OBJECTS (1,000) objects read through the spoke version (the apiserver converts every
// item through the conversion webhook) against the same list read through the hub (storage)
// version, and the time the conversion adds (issue 12; aim: under 200 ms). One control plane
// whose CRD conversion kop/testing points at the local server (`webhooks.conversionPatches`,
// Kubebuilder's webhook_in_<plural>.yaml), one kop/runtime Manager serving `/convert`
// (`manager.conversion(hub).spoke(...)`). LISTS lists of each version, alternating, median.
// The figure is taken with kube-apiserver's watch cache off (--watch-cache=false), so every list
// is read from etcd and every item goes through the webhook. With the watch cache on (the
// default, measured second), a CRD's every served version has a watch cache of its own that
// converts each object once, when its write event arrives; lists of the spoke are then served
// already converted and the webhook is not called at all: both rows are printed. Without the
// cache, kube-apiserver decodes (and so converts) a list from etcd item by item: one
// ConversionReview per object, which is what the added time is made of. The anchor: the same
// lists converted by a bare node:https handler (no kop/runtime), for the share of the transport.
// Needs `npm run build` and the binaries (`node bin/kop.js setup-envtest`).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Manager, silentLogger } from '../dist/runtime/index.js';
import { RestClient, loadClientConfig, DynamicClient } from '../dist/runtime/client/index.js';
import { startControlPlane } from '../dist/testing/index.js';

const OBJECTS = Number(process.env.OBJECTS ?? 1000);
const LISTS = Number(process.env.LISTS ?? 20);
const NS = 'default';
const config = fileURLToPath(new URL('../test/testing/fixtures/webhook-project/config/', import.meta.url));
// The fixture kind: v1 (hub, stored) has spec.size, v2 (spoke) spec.replicas.
const hubType = { group: 'test.kop.dev', version: 'v1', resource: 'gizmos', kind: 'Gizmo', namespaced: true };
const spokeType = { ...hubType, version: 'v2' };

const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** ConversionReviews the manager's webhook server answered so far (controller_runtime_webhook_requests_total{webhook="/convert"}). */
async function convertReviews(manager) {
  const metric = (await manager.metrics.registry.getMetricsAsJSON()).find(
    (m) => m.name === 'controller_runtime_webhook_requests_total',
  );
  return (metric?.values ?? []).filter((v) => v.labels.webhook === '/convert').reduce((sum, v) => sum + v.value, 0);
}

/** The anchor: a bare node:https /convert handler doing the same conversion, counting reviews. */
function startBareServer(serving, counter) {
  const server = createServer(
    {
      cert: readFileSync(path.join(serving.certDir, serving.certName)),
      key: readFileSync(path.join(serving.certDir, serving.keyName)),
    },
    (req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const { uid, desiredAPIVersion, objects } = review.request;
        counter.reviews++;
        const convertedObjects = objects.map((object) => {
          counter.conversions++;
          const { size, replicas, ...spec } = object.spec;
          const count = size ?? replicas;
          return {
            ...object,
            apiVersion: desiredAPIVersion,
            spec: desiredAPIVersion.endsWith('/v1') ? { ...spec, size: count } : { ...spec, replicas: count },
          };
        });
        const body = JSON.stringify({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          response: { uid, result: { status: 'Success' }, convertedObjects },
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
    },
  );
  return new Promise((resolve) => server.listen(serving.port, serving.host, () => resolve(server)));
}

async function measure(apiServerArgs, bare = false) {
  const plane = await startControlPlane({
    apiServerArgs,
    crds: [`${config}crd/bases`],
    webhooks: { conversionPatches: [`${config}crd/patches`] },
  });
  let manager;
  let running;
  let conversions = 0;
  let bareServer;
  const bareCounts = { reviews: 0, conversions: 0 };
  const reviewCount = async () => (bare ? bareCounts.reviews : convertReviews(manager));
  try {
    const serving = plane.webhook;
    if (bare) bareServer = await startBareServer(serving, bareCounts);
    else {
      manager = new Manager({
        kubeconfig: plane.kubeconfigPath,
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        logger: silentLogger,
        webhookServer: { host: serving.host, port: serving.port, certDir: serving.certDir },
      });
      manager
        .conversion(hubType)
        .spoke(spokeType, {
          convertTo(spoke) {
            conversions++;
            const { replicas, ...spec } = spoke.spec;
            return { ...spoke, apiVersion: 'test.kop.dev/v1', spec: { ...spec, size: replicas } };
          },
          convertFrom(hub) {
            conversions++;
            const { size, ...spec } = hub.spec;
            return { ...hub, apiVersion: 'test.kop.dev/v2', spec: { ...spec, replicas: size } };
          },
        })
        .complete();
      running = manager.start();
      while (!manager.webhookAddress) await new Promise((r) => setTimeout(r, 10));
    }

    const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
    const hub = new DynamicClient(rest).resource(hubType, hubType.kind).inNamespace(NS);
    const spoke = new DynamicClient(rest).resource(spokeType, spokeType.kind).inNamespace(NS);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < OBJECTS) {
          const i = next++;
          await hub.create({
            apiVersion: 'test.kop.dev/v1',
            kind: 'Gizmo',
            metadata: { name: `g-${String(i).padStart(5, '0')}` },
            spec: { size: i % 10, color: 'blue' },
          });
        }
      }),
    );

    const sides = {
      hub: async () => {
        const list = await hub.list();
        if (list.items.length !== OBJECTS || list.items[1].spec.size !== 1) throw new Error('hub list is wrong');
      },
      spoke: async () => {
        const list = await spoke.list();
        if (
          list.items.length !== OBJECTS ||
          list.items[1].spec.replicas !== 1 ||
          list.items[1].apiVersion !== 'test.kop.dev/v2'
        )
          throw new Error('spoke list is not converted');
      },
    };
    // Warm-up: connections, the apiserver's webhook client, JIT.
    for (let i = 0; i < 3; i++) for (const read of Object.values(sides)) await read();
    const times = { hub: [], spoke: [] };
    conversions = 0;
    bareCounts.conversions = 0;
    const reviewsBefore = await reviewCount();
    for (let i = 0; i < LISTS; i++) {
      for (const label of i % 2 === 0 ? ['hub', 'spoke'] : ['spoke', 'hub']) {
        const t = now();
        await sides[label]();
        times[label].push(now() - t);
      }
    }
    rest.close();
    const reviewsPerList = ((await reviewCount()) - reviewsBefore) / LISTS;
    const converted = bare ? bareCounts.conversions : conversions;
    return {
      hub: median(times.hub),
      spoke: median(times.spoke),
      conversionsPerList: converted / LISTS,
      reviewsPerList,
    };
  } finally {
    if (bareServer) {
      bareServer.closeAllConnections();
      await new Promise((resolve) => bareServer.close(resolve));
    }
    if (manager) {
      await manager.stop();
      await running;
      manager.rest.close();
    }
    await plane.stop();
  }
}

const row = (label, result) =>
  `${label.padEnd(42)} hub (v1) ${result.hub.toFixed(1).padStart(6)} ms   spoke (v2) ${result.spoke.toFixed(1).padStart(6)} ms   ` +
  `added ${(result.spoke - result.hub).toFixed(1).padStart(6)} ms   per spoke list: ${result.conversionsPerList.toFixed(0)} objects converted in ${result.reviewsPerList.toFixed(0)} ConversionReviews`;
const uncached = await measure(['--watch-cache=false']);
const cached = await measure([]);
const anchor = await measure(['--watch-cache=false'], true);
console.log(`${OBJECTS} objects; median of ${LISTS} lists of each version, alternating`);
console.log(row('watch cache off', uncached));
console.log(row('watch cache on', cached));
console.log(row('anchor: bare node:https, watch cache off', anchor));
console.log(
  `conversion adds ${(uncached.spoke - uncached.hub).toFixed(1)} ms to a list of ${OBJECTS} converted item by item (aim: < 200 ms)`,
);
