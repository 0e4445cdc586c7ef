// What tracing costs a kop manager on a backlog: OBJECTS Widgets exist, the manager starts, and
// each reconcile reads its Widget from the cache and writes a Ready condition through the status
// subresource; the figure is the time until all are Ready (seen in the cache) and the CPU the
// process used for it, the median of ROUNDS rounds on one real control plane.
//   TRACING=off  no OpenTelemetry SDK (what an operator without OTEL_* settings runs)
//   TRACING=sdk  the trace SDK with a BatchSpanProcessor whose exporter drops the spans (the SDK's
//                own cost: recording, batching; no network)
//   KOP_DIST=<dir>  the kop build to measure (default ../dist): point it at a build of an older
//                commit to compare with the runtime before tracing.
// Needs `npm run build` and the control-plane binaries.
// Measured 2026-11-27 on the shared 2-core machine (load average 15-20, so wall times swing by
// tens of per cent), 1,000 objects, median of 3 rounds: before tracing (KOP_DIST at the parent
// commit) 10.1 s to Ready, 1.09 s process CPU; TRACING=off 7.1 s, 1.09 s CPU (1.01x); TRACING=sdk
// 8.0 s, 1.51 s CPU (about 1.4x), about 5 spans per object. The no-SDK calls themselves cost
// 1-2 microseconds per reconcile in a loop of a million.
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const OBJECTS = Number(process.env.OBJECTS ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const TRACING = process.env.TRACING ?? 'off';
const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, process.env.KOP_DIST ?? '../dist');
const load = (p) => import(pathToFileURL(path.join(dist, p)).href);

let exported = 0;
if (TRACING === 'sdk') {
  const { context, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const exporter = {
    export(spans, done) {
      exported += spans.length;
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }));
} else if (TRACING !== 'off') throw new Error(`TRACING must be off or sdk, not ${TRACING}`);

const { Manager, setCondition, silentLogger } = await load('runtime/index.js');
const { coreV1NamespaceType } = await load('runtime/builtin/index.js');
const { generationChanged } = await load('runtime/controller/index.js');
const { RestClient, loadClientConfig, DynamicClient } = await load('runtime/client/index.js');
const { startControlPlane } = await load('testing/index.js');

const widgetResource = { group: 'test.kop.dev', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true };
const crd = path.join(here, '../test/runtime/controller/fixtures/widget-crd.yaml');
const isReady = (w) => (w.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const plane = await startControlPlane({ crds: [crd] });
const admin = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
const results = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const namespace = `tracing-${round}`;
    await new DynamicClient(admin).resource(coreV1NamespaceType, 'Namespace').create({ metadata: { name: namespace } });
    const widgets = new DynamicClient(admin).resource(widgetResource, 'Widget').inNamespace(namespace);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < OBJECTS) {
          const i = next++;
          await widgets.create({ metadata: { name: `w-${String(i).padStart(5, '0')}` }, spec: { size: i } });
        }
      }),
    );
    const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
    const manager = new Manager({
      rest,
      namespace,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logger: silentLogger,
    });
    const ready = new Set();
    manager.informerFor(widgetResource).addEventHandler({
      onUpdate: (_old, w) => isReady(w) && ready.add(w.metadata.name),
    });
    manager
      .controller('backlog')
      .for(widgetResource, { predicates: [generationChanged()] })
      .withOptions({ maxConcurrentReconciles: CONCURRENCY })
      .complete(async (req, { client }) => {
        const w = await client.get(widgetResource, req);
        if (isReady(w)) return;
        const conditions = [];
        setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'ok' });
        await client.status().update(widgetResource, { ...w, status: { conditions } });
      });
    const cpu = process.cpuUsage();
    const start = performance.now();
    const running = manager.start();
    while (ready.size < OBJECTS) await new Promise((r) => setTimeout(r, 5));
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    await manager.stop();
    await running;
    rest.close();
    const cpuMs = (used.user + used.system) / 1000;
    results.push({ ms, cpuMs });
    console.log(`round ${round + 1}: ${OBJECTS} Ready in ${ms.toFixed(0)} ms, process CPU ${cpuMs.toFixed(0)} ms`);
  }
} finally {
  admin.close();
  await plane.stop();
}
console.log(
  `TRACING=${TRACING} KOP_DIST=${path.relative(path.join(here, '..'), dist) || '.'}: median time-to-Ready ${median(results.map((r) => r.ms)).toFixed(0)} ms, median CPU ${median(results.map((r) => r.cpuMs)).toFixed(0)} ms` +
    (TRACING === 'sdk' ? `, ${exported} spans exported` : ''),
);
