// Peak memory and time of a cache's initial sync with many objects (issue 26, part 2): creates
// OBJECTS ConfigMaps of about 1 KB (KIND=pods: Pods of realistic size with two field managers,
// bench/lib/cache-objects.mjs) in one namespace, then, ROUNDS times and in an order that rotates
// between rounds, starts a fresh process whose manager caches that namespace's objects and stops
// it once the cache has synced:
//  - kop, streaming list (the default: a watch with sendInitialEvents, kop/runtime's Manager);
//  - kop, paginated list (informerDefaults.streamingList: false, pages of 500);
//  - kop, one unpaginated list (streamingList: false, one page as large as the set);
//  - a Node floor: a bare HTTPS watch whose events are JSON.parsed into a Map (no informer), the
//    least any Node process does for the same list;
//  - controller-runtime v0.23 with its defaults, and with TransformStripManagedFields
//    (bench/controller-runtime-operator/initial-sync, built with `go build`; GO=0 skips it).
// Each process reports the milliseconds from the manager's start to synced, the objects cached,
// its CPU time (user+system, the whole process) by then, and its peak resident set (VmHWM) and
// resident set at that moment; printed per round, then the median and min–max per variant and the
// ratios to controller-runtime's default. On a loaded machine the CPU time says more than the
// time: a process waits for a core most of the time, and Go's several threads get more turns.
// BENCH_KUBECONFIG runs it on a control plane that is up already (objects only created if missing;
// with BENCH_ETCD_URL, the objects missing go into its etcd: see bench/lib/cache-objects.mjs).
// kop runs with the Node flags of the scaffold's `npm start` (templates/init/package.json.hbs).
// Needs `npm run build`, Go (unless GO=0) and the binaries (`node bin/kop.js setup-envtest`).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const OBJECTS = Number(process.env.OBJECTS ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const GO = process.env.GO !== '0';
const CREATE_CONCURRENCY = Number(process.env.CREATE_CONCURRENCY ?? 64);
const KIND = process.env.KIND ?? 'configmaps';
const NAMESPACE = process.env.NAMESPACE ?? (KIND === 'pods' ? 'pods-full' : 'cache-full');

/** /proc/self/status field in bytes. */
function status(field) {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line.split(/\s+/)[1]) * 1024;
}

if (process.argv[2] === 'kop') {
  // The measured process: only a manager with one informer lives here.
  const [kubeconfig, method, kind, namespace, dist = '../dist'] = process.argv.slice(3);
  const { Manager, silentLogger } = await import(`${dist}/runtime/index.js`);
  const { coreV1ConfigMapType, coreV1PodType } = await import(`${dist}/runtime/builtin/index.js`);
  const started = performance.now();
  const manager = new Manager({
    kubeconfig,
    namespace,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
    // A loaded machine can take longer than the default 2 minutes for 100,000 objects.
    cacheSyncTimeoutMs: 30 * 60_000,
    informerDefaults:
      method === 'streaming'
        ? { streamingList: true }
        : { streamingList: false, listPageSize: method === 'paginated' ? 500 : 10_000_000 },
  });
  const informer = manager.informerFor(kind === 'pods' ? coreV1PodType : coreV1ConfigMapType);
  const running = manager.start();
  await informer.waitForSync();
  const syncedMs = performance.now() - started;
  const cpu = process.cpuUsage();
  const stats = informer.stats;
  process.stdout.write(
    `${JSON.stringify({ syncedMs, cpuMs: (cpu.user + cpu.system) / 1000, objects: stats.objects, method: stats.lastListMethod, cachedBytes: stats.bytes, peak: status('VmHWM'), rss: status('VmRSS') })}\n`,
  );
  await manager.stop();
  await running;
  process.exit(0);
}

if (process.argv[2] === 'node-floor') {
  // The least a Node process does to fill a cache from a streaming list: one HTTPS watch with
  // sendInitialEvents, each event's line decoded and JSON.parsed and its object kept in a Map until
  // the bookmark that ends the initial events. No managedFields cut, no indexes, no handlers, no
  // retries: a floor for what kop/runtime's informer does, not an informer.
  const [kubeconfig, kind, namespace] = process.argv.slice(3);
  const https = await import('node:https');
  const { loadClientConfig } = await import('../dist/runtime/client/index.js');
  const { server, cluster, user } = loadClientConfig({ kubeconfig });
  const pem = (file, data) => (file ? readFileSync(file) : data ? Buffer.from(data, 'base64') : undefined);
  const started = performance.now();
  const url = new URL(`${server}/api/v1/namespaces/${namespace}/${kind}`);
  for (const [k, v] of Object.entries({
    watch: '1',
    sendInitialEvents: 'true',
    allowWatchBookmarks: 'true',
    resourceVersionMatch: 'NotOlderThan',
  }))
    url.searchParams.set(k, v);
  const cache = new Map();
  await new Promise((resolvePromise, reject) => {
    const request = https.get(
      url,
      {
        ca: pem(cluster.caFile, cluster.caData),
        cert: pem(user.certFile, user.certData),
        key: pem(user.keyFile, user.keyData),
        headers: { Accept: 'application/json', ...(user.token ? { Authorization: `Bearer ${user.token}` } : {}) },
      },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`watch answered ${response.statusCode}`));
        response.setEncoding('utf8');
        let rest = '';
        response.on('data', (chunk) => {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop();
          for (const line of lines) {
            if (!line) continue;
            const event = JSON.parse(line);
            const meta = event.object.metadata;
            if (event.type === 'ADDED') cache.set(`${meta.namespace}/${meta.name}`, event.object);
            else if (event.type === 'BOOKMARK' && meta.annotations?.['k8s.io/initial-events-end'] === 'true') {
              request.destroy();
              resolvePromise();
            }
          }
        });
        response.on('error', reject);
      },
    );
    request.on('error', (err) => (cache.size > 0 ? undefined : reject(err)));
  });
  const syncedMs = performance.now() - started;
  const cpu = process.cpuUsage();
  process.stdout.write(
    `${JSON.stringify({ syncedMs, cpuMs: (cpu.user + cpu.system) / 1000, objects: cache.size, peak: status('VmHWM'), rss: status('VmRSS') })}\n`,
  );
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
// NODE_FLAGS='' runs kop (and the Node floor) with Node's defaults instead of the scaffold's flags.
const nodeFlags =
  process.env.NODE_FLAGS !== undefined ? process.env.NODE_FLAGS.split(' ').filter(Boolean) : scaffoldNodeFlags();

// ONLY=name,name runs only those variants (a run of 100,000 objects on a loaded machine is long).
const ONLY = process.env.ONLY?.split(',');
// BEFORE_DIST=<folder>: also runs kop's streaming and paginated variants with kop/runtime from that
// folder (a `dist/` built from another commit, inside this checkout so its node_modules resolve),
// as 'kop streaming before' and 'kop paginated before': an A/B in the same run.
const BEFORE_DIST = process.env.BEFORE_DIST ? pathToFileURL(resolve(process.env.BEFORE_DIST)).href : undefined;
const ALL_VARIANTS = [
  {
    name: 'kop streaming',
    command: (kc) => [
      process.execPath,
      [...nodeFlags, fileURLToPath(import.meta.url), 'kop', kc, 'streaming', KIND, NAMESPACE],
    ],
  },
  {
    name: 'kop paginated',
    command: (kc) => [
      process.execPath,
      [...nodeFlags, fileURLToPath(import.meta.url), 'kop', kc, 'paginated', KIND, NAMESPACE],
    ],
  },
  {
    name: 'kop unpaginated',
    command: (kc) => [
      process.execPath,
      [...nodeFlags, fileURLToPath(import.meta.url), 'kop', kc, 'unpaginated', KIND, NAMESPACE],
    ],
  },
  {
    // Not an informer: the floor of any Node process doing this (see 'node-floor' above).
    name: 'node floor',
    command: (kc) => [
      process.execPath,
      [...nodeFlags, fileURLToPath(import.meta.url), 'node-floor', kc, KIND, NAMESPACE],
    ],
  },
  ...(BEFORE_DIST
    ? ['streaming', 'paginated'].map((method) => ({
        name: `kop ${method} before`,
        command: (kc) => [
          process.execPath,
          [...nodeFlags, fileURLToPath(import.meta.url), 'kop', kc, method, KIND, NAMESPACE, BEFORE_DIST],
        ],
      }))
    : []),
  ...(GO
    ? [
        {
          name: 'controller-runtime',
          command: (_kc) => [goBinary, ['-namespace', NAMESPACE, '-kind', KIND]],
          env: (kc) => ({ KUBECONFIG: kc }),
        },
        {
          name: 'controller-runtime strip',
          command: (_kc) => [goBinary, ['-namespace', NAMESPACE, '-kind', KIND, '-strip-managed-fields']],
          env: (kc) => ({ KUBECONFIG: kc }),
        },
      ]
    : []),
];
const VARIANTS = ONLY ? ALL_VARIANTS.filter((v) => ONLY.includes(v.name)) : ALL_VARIANTS;

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

if (GO) {
  // Incremental: quick when nothing changed, and never a stale binary.
  console.log('building bench/controller-runtime-operator/initial-sync (go build) ...');
  execFileSync('go', ['build', '-o', goBinary, './initial-sync'], {
    cwd: join(root, 'bench/controller-runtime-operator'),
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    stdio: 'inherit',
  });
}

const { RestClient, loadClientConfig, createClient } = await import('../dist/runtime/client/index.js');
const types = await import('../dist/runtime/builtin/index.js');
const { startControlPlane } = await import('../dist/testing/index.js');
const { ensureObjects, CONTROL_PLANE_WITH_JSON_STORAGE } = await import('./lib/cache-objects.mjs');
const plane = process.env.BENCH_KUBECONFIG
  ? { kubeconfigPath: process.env.BENCH_KUBECONFIG, etcdUrl: process.env.BENCH_ETCD_URL, stop: async () => {} }
  : await startControlPlane(CONTROL_PLANE_WITH_JSON_STORAGE);
const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
try {
  const created = await ensureObjects(createClient(rest), types, KIND, NAMESPACE, OBJECTS, {
    concurrency: CREATE_CONCURRENCY,
    log: console.log,
    etcdUrl: plane.etcdUrl,
  });
  console.log(`${OBJECTS} ${KIND} in ${NAMESPACE}: created ${created.created} in ${created.seconds.toFixed(1)} s`);
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`kop runs with node ${process.version} ${nodeFlags.join(' ')}; ${ROUNDS} rounds; load average ${load()}`);

  const results = new Map(VARIANTS.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
    for (const variant of order) {
      const result = await runChild(variant, plane.kubeconfigPath);
      if (result.objects !== OBJECTS)
        throw new Error(`${variant.name} cached ${result.objects} objects, not ${OBJECTS}: is ${NAMESPACE} shared?`);
      if (
        variant.name.startsWith('kop') &&
        result.method !== variant.name.split(' ')[1].replace('unpaginated', 'paginated')
      )
        throw new Error(`${variant.name} filled its cache by a ${result.method} list`);
      results.get(variant.name).push(result);
      console.log(
        `round ${round + 1} ${variant.name.padEnd(26)} synced in ${(result.syncedMs / 1000).toFixed(2)} s, CPU ${(result.cpuMs / 1000).toFixed(2)} s, peak RSS ${mb(result.peak)} MB, RSS at sync ${mb(result.rss)} MB` +
          (result.cachedBytes ? `, cache estimate ${mb(result.cachedBytes)} MB` : '') +
          `; load average ${load()}`,
      );
    }
  }
  const reference = GO ? results.get('controller-runtime') : undefined;
  console.log(`\nmedians of ${ROUNDS} rounds, ${OBJECTS} ${KIND} (min–max):`);
  const range = (xs, f) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
  const seconds = (x) => (x / 1000).toFixed(2);
  for (const [name, rows] of results) {
    const of = (field) => median(rows.map((r) => r[field]));
    const times = (field) => (reference ? ` ×${(of(field) / median(reference.map((r) => r[field]))).toFixed(2)}` : '');
    console.log(
      `${name.padEnd(26)} peak RSS ${mb(of('peak'))} MB (${range(
        rows.map((r) => r.peak),
        mb,
      )})${times('peak')}; synced in ${seconds(of('syncedMs'))} s (${range(
        rows.map((r) => r.syncedMs),
        seconds,
      )})${times('syncedMs')}; CPU ${seconds(of('cpuMs'))} s (${range(
        rows.map((r) => r.cpuMs),
        seconds,
      )})${times('cpuMs')}`,
    );
  }
  if (reference) console.log("(× are ratios to controller-runtime's default)");
} finally {
  rest.close();
  await plane.stop();
}
