// Manager memory with many objects cached: creates OBJECTS ConfigMaps (small, like most operators
// cache), then starts a manager in a separate process with a controller on ConfigMaps, waits
// until its cache holds them all and the first reconcile of each ran, and prints its resident set
// size (RSS) and V8 heap. Aim (issue 6): RSS under 150 MB with 10,000 objects.
// The measured process loads only what an operator's main.ts loads (kop/runtime, not kop/testing)
// and serves /metrics, /healthz and /readyz as a manager does by default. It runs with the Node
// flags of the scaffold's `npm start` (templates/init/package.json.hbs), or NODE_FLAGS when set
// (NODE_FLAGS= for none).
// Needs `npm run build` and the binaries (`node bin/kop.js setup-envtest`).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const OBJECTS = Number(process.env.OBJECTS ?? 10_000);

if (process.argv[2] === 'manager') {
  // The measured process: only the manager lives here.
  const { Manager, silentLogger } = await import('../dist/runtime/index.js');
  const { coreV1ConfigMapType } = await import('../dist/runtime/builtin/index.js');
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  const manager = new Manager({
    kubeconfig: process.argv[3],
    namespace: 'rss',
    metricsBindAddress: '127.0.0.1:0',
    metricsSecure: false,
    healthProbeBindAddress: '127.0.0.1:0',
    logger: silentLogger,
  });
  const seen = new Set();
  manager
    .controller('configmaps')
    .for(coreV1ConfigMapType)
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete((req) => {
      seen.add(req.name);
    });
  const running = manager.start();
  while (seen.size < Number(process.argv[4])) await new Promise((r) => setTimeout(r, 50));
  const cached = manager.lister(coreV1ConfigMapType).list().length;
  // One scrape, as Prometheus would do.
  await fetch(`http://${manager.metricsAddress}/metrics`).then((r) => r.text());
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 500));
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    JSON.stringify({ cached, reconciled: seen.size, rss, peak, heapUsed, heapTotal, external, baseline }) + '\n',
  );
  await manager.stop();
  await running;
  process.exit(0);
}

/** The flags between `node` and the script in the scaffold's start script. */
function scaffoldNodeFlags() {
  const template = readFileSync(new URL('../templates/init/package.json.hbs', import.meta.url), 'utf8');
  const start = /"start": "node((?: --[\w-]+(?:=\S+)?)*) \S+"/.exec(template);
  if (!start) throw new Error('no `node [flags] <main>` start script in templates/init/package.json.hbs');
  return start[1].trim().split(' ').filter(Boolean);
}
const nodeFlags =
  process.env.NODE_FLAGS !== undefined ? process.env.NODE_FLAGS.split(' ').filter(Boolean) : scaffoldNodeFlags();

const { RestClient, loadClientConfig } = await import('../dist/runtime/client/index.js');
const { coreV1ConfigMapType, coreV1NamespaceType } = await import('../dist/runtime/builtin/index.js');
const { DynamicClient } = await import('../dist/runtime/client/index.js');
const { startControlPlane } = await import('../dist/testing/index.js');
const plane = await startControlPlane();
const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
try {
  await new DynamicClient(rest)
    .resource(coreV1NamespaceType, coreV1NamespaceType.kind)
    .create({ metadata: { name: 'rss' } });
  const client = new DynamicClient(rest).resource(coreV1ConfigMapType, coreV1ConfigMapType.kind).inNamespace('rss');
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < OBJECTS) {
        const i = next++;
        await client.create({
          metadata: { name: `cm-${String(i).padStart(5, '0')}`, labels: { app: 'bench', index: String(i) } },
          data: { key: `value-${i}`, other: 'x'.repeat(64) },
        });
      }
    }),
  );
  console.log(`created ${OBJECTS} ConfigMaps in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const child = spawn(
    process.execPath,
    [...nodeFlags, '--expose-gc', fileURLToPath(import.meta.url), 'manager', plane.kubeconfigPath, String(OBJECTS)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  await new Promise((resolve) => child.on('exit', resolve));
  const result = JSON.parse(out.trim().split('\n').pop());
  const mb = (b) => (b / 1024 / 1024).toFixed(1);
  console.log(
    `manager (node ${process.version} ${nodeFlags.join(' ') || 'without flags'}) with ${result.cached} objects cached (${result.reconciled} reconciled): RSS ${mb(result.rss)} MB, peak ${mb(result.peak)} MB ` +
      `(process with kop/runtime loaded, before the manager: ${mb(result.baseline)} MB); V8 heap used ${mb(result.heapUsed)} MB of ${mb(result.heapTotal)} MB, external ${mb(result.external)} MB`,
  );
} finally {
  rest.close();
  await plane.stop();
}
