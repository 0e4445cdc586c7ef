// Typed `get` and `list` through kop/runtime against the same calls through
// @kubernetes/client-node's generic KubernetesObjectApi, on one real control plane holding
// 1,000 ConfigMaps. Runs the two clients alternately so both see the same machine load and
// prints, for each: get latency (sequential, p50/p99), get throughput (CONCURRENCY in flight)
// and list-1000 latency (p50). Aim: kop no slower than client-node.
// Needs `npm run build` and the binaries (`node bin/kop.js setup-envtest`).
import * as k8s from '@kubernetes/client-node';
import { RestClient, loadClientConfig, DynamicClient } from '../dist/runtime/client/index.js';
import { coreV1ConfigMapType, coreV1NamespaceType } from '../dist/runtime/builtin/index.js';
import { startControlPlane } from '../dist/testing/index.js';

const OBJECTS = Number(process.env.OBJECTS ?? 1000);
const GETS = Number(process.env.GETS ?? 400);
const CONCURRENT_GETS = Number(process.env.CONCURRENT_GETS ?? 2000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const LISTS = Number(process.env.LISTS ?? 15);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const NS = 'bench';

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const now = () => Number(process.hrtime.bigint()) / 1e6;
const nameOf = (i) => `cm-${String(i).padStart(4, '0')}`;

const plane = await startControlPlane();
try {
  // kop: the client-side limiter is turned off, since client-node has none.
  const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
  const kop = new DynamicClient(rest).resource(coreV1ConfigMapType, coreV1ConfigMapType.kind).inNamespace(NS);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(plane.kubeconfigPath);
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);

  await new DynamicClient(rest)
    .resource(coreV1NamespaceType, coreV1NamespaceType.kind)
    .create({ metadata: { name: NS } });
  const payload = { config: 'x'.repeat(200) };
  for (let i = 0; i < OBJECTS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, OBJECTS - i) }, (_, j) =>
        kop.create({ metadata: { name: nameOf(i + j), labels: { bench: 'yes' } }, data: payload }),
      ),
    );
  }

  const clients = {
    kop: {
      get: (name) => kop.get(name),
      list: async () => (await kop.list()).items.length,
    },
    'client-node': {
      get: (name) => objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS } }),
      list: async () => (await objects.list('v1', 'ConfigMap', NS)).items.length,
    },
  };

  const results = Object.fromEntries(Object.keys(clients).map((k) => [k, { get: [], throughput: [], list: [] }]));
  // Warm-up: connections, discovery caches, JIT.
  for (const c of Object.values(clients)) {
    for (let i = 0; i < 50; i++) await c.get(nameOf(i));
    if ((await c.list()) !== OBJECTS) throw new Error('list returned the wrong number of objects');
  }

  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, c] of Object.entries(clients)) {
      const r = results[label];
      for (let i = 0; i < GETS; i++) {
        const t = now();
        await c.get(nameOf(i % OBJECTS));
        r.get.push(now() - t);
      }
      let next = 0;
      const t0 = now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < CONCURRENT_GETS) await c.get(nameOf(next++ % OBJECTS));
        }),
      );
      r.throughput.push(CONCURRENT_GETS / ((now() - t0) / 1000));
      for (let i = 0; i < LISTS; i++) {
        const t = now();
        await c.list();
        r.list.push(now() - t);
      }
    }
  }

  console.log(`control plane ${plane.server}; ${OBJECTS} ConfigMaps; ${ROUNDS} alternating rounds`);
  console.log('client        get p50 ms  get p99 ms  get/s (x' + CONCURRENCY + ')  list-' + OBJECTS + ' p50 ms');
  for (const [label, r] of Object.entries(results)) {
    console.log(
      `${label.padEnd(12)}  ${percentile(r.get, 50).toFixed(2).padStart(10)}  ${percentile(r.get, 99).toFixed(2).padStart(10)}  ${percentile(r.throughput, 50).toFixed(0).padStart(13)}  ${percentile(r.list, 50).toFixed(1).padStart(14)}`,
    );
  }
  const k = results.kop;
  const c = results['client-node'];
  console.log(
    `kop vs client-node: get p50 ${(percentile(c.get, 50) / percentile(k.get, 50)).toFixed(2)}x faster, ` +
      `throughput ${(percentile(k.throughput, 50) / percentile(c.throughput, 50)).toFixed(2)}x, ` +
      `list ${(percentile(c.list, 50) / percentile(k.list, 50)).toFixed(2)}x faster`,
  );
  rest.close();
} finally {
  await plane.stop();
}
