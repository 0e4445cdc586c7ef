// Bytes per cached object (issue 26): the RSS an operator gains per object its cache holds, as
// (RSS with OBJECTS ConfigMaps cached - RSS with none cached) / OBJECTS (KIND=pods: Pods of
// realistic size written by two field managers, see bench/lib/cache-objects.mjs), for
//  - kop's default cache (managedFields dropped) and kop metadata-only (for(type, { metadataOnly: true })),
//  - a controller-runtime v0.23 manager with its defaults, with TransformStripManagedFields, and
//    with OnlyMetadata (bench/controller-runtime-operator/cachebench, built with `go build` into
//    bench/.cache/ as bench/operator-vs-controller-runtime.mjs builds its operator),
// each a process whose one controller reconciles the ConfigMaps of one namespace and does nothing
// else. The ConfigMaps are about 1 KB as JSON (a 500-byte value, two labels, the managedFields
// entry the apiserver adds on create). Each process runs twice per round, on an empty namespace
// and on the full one; once its cache has synced and every object was reconciled it collects
// garbage (Node's gc(), Go's runtime.GC()), waits a second and says so; the RSS (VmRSS) is read
// SETTLE_MS later. ROUNDS rounds, the order of the operators alternating; printed: each
// measurement, then per operator the median and min–max bytes per object, and the ratios.
// kop runs with the Node flags of the scaffold's `npm start` (templates/init/package.json.hbs).
// BENCH_KUBECONFIG runs it on a control plane that is up already (objects only created if
// missing, so a set of 100,000 made once serves several runs; with BENCH_ETCD_URL, the objects
// missing go into its etcd, see CONTROL_PLANE_WITH_JSON_STORAGE); the load average is printed with
// each measurement, since other work on the machine moves the figures.
// Needs `npm run build`, Go, and the control-plane binaries (`node bin/kop.js setup-envtest`).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OBJECTS = Number(process.env.OBJECTS ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 1500);
const READY_TIMEOUT_MS = Number(process.env.READY_TIMEOUT_MS ?? 600_000);
const KIND = process.env.KIND ?? 'configmaps';
const PREFIX = KIND === 'pods' ? 'pods' : 'cache';

if (process.argv[2] === 'kop') {
  // The measured kop process: a manager with one controller, nothing else loaded.
  const [, , , kubeconfig, namespace, mode, expect, kind] = process.argv;
  const { Manager, silentLogger } = await import('../dist/runtime/index.js');
  const { coreV1ConfigMapType, coreV1PodType } = await import('../dist/runtime/builtin/index.js');
  const type = kind === 'pods' ? coreV1PodType : coreV1ConfigMapType;
  const manager = new Manager({
    kubeconfig,
    namespace,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
  });
  const seen = new Set();
  const builder = manager.controller('cached');
  (mode === 'metadata' ? builder.for(type, { metadataOnly: true }) : builder.for(type))
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete((req) => {
      seen.add(req.name);
    });
  const running = manager.start();
  while (seen.size < Number(expect) || !manager.informersStarted) await new Promise((r) => setTimeout(r, 50));
  await manager.cluster.waitForCacheSync(AbortSignal.timeout(READY_TIMEOUT_MS));
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 1000));
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void manager.stop());
  await running;
  process.exit(0);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const goModule = join(root, 'bench/controller-runtime-operator');
const goBinary = join(root, 'bench/.cache/controller-runtime-cachebench');
const log = (line) => process.stdout.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The flags between `node` and the script in the scaffold's start script. */
function scaffoldNodeFlags() {
  const template = readFileSync(join(root, 'templates/init/package.json.hbs'), 'utf8');
  const start = /"start": "node((?: --[\w-]+(?:=\S+)?)*) \S+"/.exec(template);
  if (!start) throw new Error('no `node [flags] <main>` start script in templates/init/package.json.hbs');
  return start[1].trim().split(' ').filter(Boolean);
}

function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) * 1024;
}

const children = new Set();
process.on('exit', () => {
  for (const child of children) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
let plane;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, async () => {
    for (const child of children) child.kill('SIGKILL');
    await plane?.stop().catch(() => {});
    process.exit(130);
  });
}

/** Starts one measured process, waits for its "ready", reads its RSS, stops it. */
async function measure(command, args) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('ready\n')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${command} exited (${code}) before it was ready:\n${stderr}`));
      });
    });
    await sleep(SETTLE_MS);
    return rssBytes(child.pid);
  } finally {
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
    child.kill('SIGKILL');
    await exited;
    children.delete(child);
  }
}

mkdirSync(join(root, 'bench/.cache'), { recursive: true });
log('building the controller-runtime cache bench (go build) ...');
execFileSync('go', ['build', '-o', goBinary, './cachebench'], {
  cwd: goModule,
  env: { ...process.env, GOFLAGS: '-mod=mod' },
  stdio: 'inherit',
});

const nodeFlags = scaffoldNodeFlags();
const self = fileURLToPath(import.meta.url);
// ONLY=name,name measures only those operators (a run of 100,000 objects on a loaded machine is long).
const ONLY = process.env.ONLY?.split(',');
const allOperators = [
  { name: 'kop default', kop: 'default' },
  { name: 'kop metadata-only', kop: 'metadata' },
  { name: 'controller-runtime default', go: 'default' },
  { name: 'controller-runtime TransformStripManagedFields', go: 'strip' },
  { name: 'controller-runtime OnlyMetadata', go: 'metadata' },
];
const operators = ONLY ? allOperators.filter((o) => ONLY.includes(o.name)) : allOperators;
const commandOf = (operator, kubeconfig, namespace, expect) =>
  operator.kop
    ? [
        process.execPath,
        [...nodeFlags, '--expose-gc', self, 'kop', kubeconfig, namespace, operator.kop, String(expect), KIND],
      ]
    : [
        goBinary,
        [
          ...['--kubeconfig', kubeconfig, '--namespace', namespace, '--kind', KIND],
          ...['--mode', operator.go, '--expect', String(expect)],
        ],
      ];

const { RestClient, loadClientConfig, createClient } = await import('../dist/runtime/client/index.js');
const types = await import('../dist/runtime/builtin/index.js');
const { startControlPlane } = await import('../dist/testing/index.js');
const { ensureObjects, CONTROL_PLANE_WITH_JSON_STORAGE } = await import('./lib/cache-objects.mjs');
plane = process.env.BENCH_KUBECONFIG
  ? { kubeconfigPath: process.env.BENCH_KUBECONFIG, etcdUrl: process.env.BENCH_ETCD_URL, stop: async () => {} }
  : await startControlPlane(CONTROL_PLANE_WITH_JSON_STORAGE);
const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const EMPTY = `${PREFIX}-empty`;
const FULL = `${PREFIX}-full`;
try {
  const client = createClient(rest);
  await ensureObjects(client, types, KIND, EMPTY, 0);
  const created = await ensureObjects(client, types, KIND, FULL, OBJECTS, { log, etcdUrl: plane.etcdUrl });
  const type = KIND === 'pods' ? types.coreV1PodType : types.coreV1ConfigMapType;
  const sample = await client.get(type, { namespace: FULL, name: KIND === 'pods' ? 'pod-000000' : 'cm-000000' });
  log(
    `${OBJECTS} ${KIND} of ${JSON.stringify(sample).length} bytes as JSON ` +
      `(${JSON.stringify(sample.metadata?.managedFields ?? []).length} of them managedFields, ` +
      `${sample.metadata?.managedFields?.length ?? 0} managers); created ${created.created} in ${created.seconds.toFixed(1)} s`,
  );
  log(
    `node ${process.version} ${nodeFlags.join(' ')}; ${execFileSync('go', ['version'], { encoding: 'utf8' }).trim()}`,
  );

  const results = new Map(operators.map((o) => [o.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? operators : [...operators].reverse();
    for (const operator of order) {
      const empty = await measure(...commandOf(operator, plane.kubeconfigPath, EMPTY, 0));
      const full = await measure(...commandOf(operator, plane.kubeconfigPath, FULL, OBJECTS));
      const perObject = (full - empty) / OBJECTS;
      results.get(operator.name).push({ empty, full, perObject });
      log(
        `round ${round + 1} ${operator.name}: RSS ${(empty / 2 ** 20).toFixed(1)} MB empty, ${(full / 2 ** 20).toFixed(1)} MB with ${OBJECTS}: ${perObject.toFixed(0)} bytes per object; load average ${load()}`,
      );
    }
  }

  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const med = new Map();
  log(`\nbytes per cached object (RSS growth from 0 to ${OBJECTS} ${KIND} / ${OBJECTS}), median of ${ROUNDS}:`);
  for (const operator of operators) {
    const per = results.get(operator.name).map((r) => r.perObject);
    const full = results.get(operator.name).map((r) => r.full / 2 ** 20);
    med.set(operator.name, median(per));
    log(
      `  ${operator.name.padEnd(48)} ${median(per).toFixed(0).padStart(6)} B (${Math.min(...per).toFixed(0)}–${Math.max(...per).toFixed(0)}); RSS with ${OBJECTS}: ${median(full).toFixed(1)} MB`,
    );
  }
  const ratio = (a, b) => (med.has(a) && med.has(b) ? `${(med.get(a) / med.get(b)).toFixed(2)}×` : 'not measured');
  log('ratios of the medians:');
  log(
    `  kop default / controller-runtime default:                        ${ratio('kop default', 'controller-runtime default')} (aim ≤ 0.7×)`,
  );
  log(
    `  kop default / controller-runtime TransformStripManagedFields:    ${ratio('kop default', 'controller-runtime TransformStripManagedFields')} (aim ≤ 1.0×)`,
  );
  log(
    `  kop metadata-only / controller-runtime OnlyMetadata:             ${ratio('kop metadata-only', 'controller-runtime OnlyMetadata')}`,
  );
  log(
    `  kop metadata-only / kop default:                                 ${ratio('kop metadata-only', 'kop default')}`,
  );
} finally {
  rest.close();
  await plane.stop();
}
