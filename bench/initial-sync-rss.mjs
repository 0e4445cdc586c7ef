// Peak memory and time of a cache's initial sync with many objects (issue 26, part 2): creates
// OBJECTS ConfigMaps of about 1 KB in one namespace, then, ROUNDS times and in an order that
// rotates between rounds, starts a fresh process whose manager caches that namespace's ConfigMaps
// and stops it once the cache has synced:
//  - kop, streaming list (the default: a watch with sendInitialEvents, kop/runtime's Manager);
//  - kop, paginated list (informerDefaults.streamingList: false, pages of 500);
//  - kop, one unpaginated list (streamingList: false, one page as large as the set);
//  - controller-runtime v0.23 with its defaults, and with TransformStripManagedFields
//    (bench/controller-runtime-operator/initial-sync, built with `go build`; GO=0 skips it).
// Each process reports the milliseconds from the manager's start to synced, the objects cached,
// and its peak resident set (VmHWM) and resident set at that moment; printed per round, then
// the median and min–max per variant and the ratio to controller-runtime's default.
// kop runs with the Node flags of the scaffold's `npm start` (templates/init/package.json.hbs).
// Needs `npm run build`, Go (unless GO=0) and the binaries (`node bin/kop.js setup-envtest`).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OBJECTS = Number(process.env.OBJECTS ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const GO = process.env.GO !== '0';
const CREATE_CONCURRENCY = Number(process.env.CREATE_CONCURRENCY ?? 128);
const NAMESPACE = 'sync';

/** /proc/self/status field in bytes. */
function status(field) {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line.split(/\s+/)[1]) * 1024;
}

if (process.argv[2] === 'kop') {
  // The measured process: only a manager with one informer lives here.
  const [kubeconfig, method] = process.argv.slice(3);
  const { Manager, silentLogger } = await import('../dist/runtime/index.js');
  const { coreV1ConfigMapType } = await import('../dist/runtime/builtin/index.js');
  const started = performance.now();
  const manager = new Manager({
    kubeconfig,
    namespace: NAMESPACE,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
    informerDefaults:
      method === 'streaming'
        ? { streamingList: true }
        : { streamingList: false, listPageSize: method === 'paginated' ? 500 : 10_000_000 },
  });
  const informer = manager.informerFor(coreV1ConfigMapType);
  const running = manager.start();
  await informer.waitForSync();
  const syncedMs = performance.now() - started;
  const stats = informer.stats;
  process.stdout.write(
    `${JSON.stringify({ syncedMs, objects: stats.objects, method: stats.lastListMethod, cachedBytes: stats.bytes, peak: status('VmHWM'), rss: status('VmRSS') })}\n`,
  );
  await manager.stop();
  await running;
  process.exit(0);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const goBinary = join(root, 'bench/.cache/controller-runtime-initial-sync');

function scaffoldNodeFlags() {
  const template = readFileSync(join(root, 'templates/init/package.json.hbs'), 'utf8');
  const start = /"start": "node((?: --[\w-]+(?:=\S+)?)*) \S+"/.exec(template);
  if (!start) throw new Error('no `node [flags] <main>` start script in templates/init/package.json.hbs');
  return start[1].trim().split(' ').filter(Boolean);
}
const nodeFlags = scaffoldNodeFlags();

const VARIANTS = [
  {
    name: 'kop streaming',
    command: (kc) => [process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), 'kop', kc, 'streaming']],
  },
  {
    name: 'kop paginated',
    command: (kc) => [process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), 'kop', kc, 'paginated']],
  },
  {
    name: 'kop unpaginated',
    command: (kc) => [process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), 'kop', kc, 'unpaginated']],
  },
  ...(GO
    ? [
        {
          name: 'controller-runtime',
          command: (_kc) => [goBinary, ['-namespace', NAMESPACE]],
          env: (kc) => ({ KUBECONFIG: kc }),
        },
        {
          name: 'controller-runtime strip',
          command: (_kc) => [goBinary, ['-namespace', NAMESPACE, '-strip-managed-fields']],
          env: (kc) => ({ KUBECONFIG: kc }),
        },
      ]
    : []),
];

function runChild(variant, kubeconfig) {
  const [file, args] = variant.command(kubeconfig);
  const child = spawn(file, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...(variant.env?.(kubeconfig) ?? {}) },
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${variant.name} exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    }),
  );
}

const mb = (b) => (b / 1024 / 1024).toFixed(1);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (GO && !existsSync(goBinary)) {
  console.log('building bench/controller-runtime-operator/initial-sync (go build) ...');
  execFileSync('go', ['build', '-o', goBinary, './initial-sync'], {
    cwd: join(root, 'bench/controller-runtime-operator'),
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    stdio: 'inherit',
  });
}

const { RestClient, loadClientConfig, DynamicClient } = await import('../dist/runtime/client/index.js');
const { coreV1ConfigMapType, coreV1NamespaceType } = await import('../dist/runtime/builtin/index.js');
const { startControlPlane } = await import('../dist/testing/index.js');
const plane = await startControlPlane();
const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
try {
  const dynamic = new DynamicClient(rest);
  await dynamic.resource(coreV1NamespaceType, coreV1NamespaceType.kind).create({ metadata: { name: NAMESPACE } });
  const client = dynamic.resource(coreV1ConfigMapType, coreV1ConfigMapType.kind).inNamespace(NAMESPACE);
  let next = 0;
  const createStart = Date.now();
  await Promise.all(
    Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (next < OBJECTS) {
        const i = next++;
        await client.create({
          metadata: { name: `cm-${String(i).padStart(6, '0')}`, labels: { app: 'bench', index: String(i) } },
          data: { key: `value-${i}`, payload: 'x'.repeat(800) },
        });
      }
    }),
  );
  console.log(`created ${OBJECTS} ConfigMaps of about 1 KB in ${((Date.now() - createStart) / 1000).toFixed(1)} s`);
  console.log(`kop runs with node ${process.version} ${nodeFlags.join(' ')}; ${ROUNDS} rounds`);

  const results = new Map(VARIANTS.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
    for (const variant of order) {
      const result = await runChild(variant, plane.kubeconfigPath);
      if (result.objects !== OBJECTS) throw new Error(`${variant.name} cached ${result.objects} of ${OBJECTS} objects`);
      if (
        variant.name.startsWith('kop') &&
        result.method !== variant.name.split(' ')[1].replace('unpaginated', 'paginated')
      )
        throw new Error(`${variant.name} filled its cache by a ${result.method} list`);
      results.get(variant.name).push(result);
      console.log(
        `round ${round + 1} ${variant.name.padEnd(26)} synced in ${(result.syncedMs / 1000).toFixed(2)} s, peak RSS ${mb(result.peak)} MB, RSS at sync ${mb(result.rss)} MB` +
          (result.cachedBytes ? `, cache estimate ${mb(result.cachedBytes)} MB` : ''),
      );
    }
  }
  const reference = GO ? results.get('controller-runtime') : undefined;
  console.log(`\nmedians of ${ROUNDS} rounds, ${OBJECTS} ConfigMaps (min–max):`);
  for (const [name, rows] of results) {
    const peak = median(rows.map((r) => r.peak));
    const synced = median(rows.map((r) => r.syncedMs));
    const range = (xs, f) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
    const ratio = reference
      ? `; ×${(peak / median(reference.map((r) => r.peak))).toFixed(2)} peak, ×${(synced / median(reference.map((r) => r.syncedMs))).toFixed(2)} time of controller-runtime's default`
      : '';
    console.log(
      `${name.padEnd(26)} peak RSS ${mb(peak)} MB (${range(
        rows.map((r) => r.peak),
        mb,
      )}), synced in ${(synced / 1000).toFixed(2)} s (${range(
        rows.map((r) => r.syncedMs),
        (x) => (x / 1000).toFixed(2),
      )})${ratio}`,
    );
  }
} finally {
  rest.close();
  await plane.stop();
}
