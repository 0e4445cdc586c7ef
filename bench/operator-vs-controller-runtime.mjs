// The scaffolded kop operator, defaults untouched, side by side with a controller-runtime operator
// doing the same writes (bench/controller-runtime-operator), alternating on one real control plane.
// Per operator and round:
//   created  N CRs created while the operator runs -> all Ready (first create to last Ready seen)
//   backlog  N CRs created while it is stopped, then it starts -> all Ready (from its start)
//   idle     one object, UPDATES spec updates one at a time -> Ready at the new generation, p50/p99
//   cpu      the operator's CPU seconds (user + sys, /proc) over the `created` phase
//   rss      its resident memory after the `created` phase (/proc VmRSS)
// "Ready" is seen by this process's own watch: condition Ready=True with observedGeneration equal
// to metadata.generation. Prints each round, then medians and the ratios kop / controller-runtime
// beside the aims of issue 10. Benchmarks print; they assert nothing.
//
// Needs `npm run build`, the control-plane binaries (`node bin/kop.js setup-envtest`) and Go (the
// anchor is built from the Go module proxy into the kop cache, like the test binaries).
// Environment: OBJECTS (1000), UPDATES (200), ROUNDS (3).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestClient, createClient, loadClientConfig, namespaceType } from '../dist/runtime/index.js';
import { Informer } from '../dist/runtime/cache/index.js';
import { clusterResource, namespacedResource } from '../dist/runtime/client/index.js';
import { startControlPlane } from '../dist/testing/index.js';

const OBJECTS = Number(process.env.OBJECTS ?? 1000);
const UPDATES = Number(process.env.UPDATES ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const KOP_ROOT = fileURLToPath(new URL('..', import.meta.url));
const KOP_BIN = path.join(KOP_ROOT, 'bin/kop.js');
const redisClusterType = { group: 'cache.example.com', version: 'v1alpha1', kind: 'RedisCluster', listKind: 'RedisClusterList', resource: 'redisclusters', namespaced: true };

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const run = (file, args, options = {}) => execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...options });

/** The kop operator as a new user gets it: init, create api, generate, build; kop itself linked, as `npm install` of a `file:` kop makes it. */
function scaffoldKopOperator(parent) {
  const project = path.join(parent, 'bench-operator');
  mkdirSync(project);
  run('node', [KOP_BIN, 'init', '--domain', 'example.com', '--project-name', 'bench-operator', '--skip-install', '--yes'], { cwd: project });
  mkdirSync(path.join(project, 'node_modules/.bin'), { recursive: true });
  for (const entry of readdirSync(path.join(KOP_ROOT, 'node_modules'))) {
    if (entry !== '.cache' && entry !== '.bin') symlinkSync(path.join(KOP_ROOT, 'node_modules', entry), path.join(project, 'node_modules', entry), 'dir');
  }
  symlinkSync(KOP_ROOT, path.join(project, 'node_modules/kop'), 'dir');
  for (const tool of readdirSync(path.join(KOP_ROOT, 'node_modules/.bin'))) symlinkSync(path.join(KOP_ROOT, 'node_modules/.bin', tool), path.join(project, 'node_modules/.bin', tool));
  symlinkSync(KOP_BIN, path.join(project, 'node_modules/.bin/kop'));
  run('node', [KOP_BIN, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'RedisCluster', '--yes'], { cwd: project });
  run('npm', ['run', 'build'], { cwd: project });
  return project;
}

/** The anchor, built with Go into the kop cache (reused while its sources are unchanged). */
function buildControllerRuntimeOperator() {
  const source = fileURLToPath(new URL('./controller-runtime-operator', import.meta.url));
  const cacheHome = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  const out = path.join(cacheHome, 'kop', 'bench', 'controller-runtime-operator');
  run('go', ['build', '-o', out, '.'], { cwd: source, env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return out;
}

/** CPU seconds (user + sys) and RSS in MB of a process, from /proc. */
function usage(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpu = (Number(fields[11]) + Number(fields[12])) / 100;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  return { cpu, rss };
}

const children = new Set();
function startOperator(operator, kubeconfig) {
  const child = spawn(operator.command, [...operator.args, '--kubeconfig', kubeconfig, '--metrics-bind-address', '0', '--health-probe-bind-address', '0'], {
    cwd: operator.cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  child.on('exit', (code, signal) => {
    children.delete(child);
    if (!child.stopping) console.error(`${operator.name} exited unexpectedly (${code ?? signal}): ${stderr}`);
  });
  children.add(child);
  return child;
}
async function stopOperator(child) {
  child.stopping = true;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(35_000)]);
  child.kill('SIGKILL');
}
function killAll() {
  for (const child of children) child.kill('SIGKILL');
}
process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});

const isReady = (o) => (o.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === o.metadata?.generation);

/** Watches one namespace's RedisClusters and resolves waits for "these are Ready". */
async function watchReady(rest, namespace) {
  const informer = new Informer(namespacedResource(rest, redisClusterType).inNamespace(namespace), { namespace, name: `bench-${namespace}` });
  const ready = new Map();
  let waiters = [];
  const seen = (o) => {
    if (isReady(o)) ready.set(o.metadata.name, o.metadata.generation);
    waiters = waiters.filter((w) => !w.check() || (w.resolve(), false));
  };
  informer.addEventHandler({ onAdd: seen, onUpdate: (_old, o) => seen(o) });
  informer.start();
  await informer.waitForSync();
  return {
    readyCount: () => ready.size,
    until(check) {
      return check() ? Promise.resolve() : new Promise((resolve) => waiters.push({ check, resolve }));
    },
    readyAt(name, generation) {
      return this.until(() => (ready.get(name) ?? -1) >= generation);
    },
    stop: () => informer.stop(),
  };
}

async function createAll(client, namespace, prefix, count) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const i = next++;
        await client.create(redisClusterType, { apiVersion: 'cache.example.com/v1alpha1', kind: 'RedisCluster', metadata: { name: `${prefix}-${String(i).padStart(5, '0')}`, namespace }, spec: { foo: 'bar' } });
      }
    }),
  );
}

/** Removes what a phase left (finalizers first: nothing else would remove them here), so every phase starts from the same cluster. */
async function cleanUp(client, namespace) {
  const { items } = await client.list(redisClusterType, { namespace });
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < items.length) {
        const { name } = items[next++].metadata;
        await client.patch(redisClusterType, { namespace, name }, { type: 'merge', patch: { metadata: { finalizers: null } } });
      }
    }),
  );
  await client.deleteAllOf(redisClusterType, { namespace });
}

async function measure(operator, round, plane, client, rest) {
  const result = {};
  // created: N CRs while it runs.
  const createdNs = `${operator.name}-created-${round}`;
  await clusterResource(rest, namespaceType).create({ metadata: { name: createdNs } });
  const watchCreated = await watchReady(rest, createdNs);
  let child = startOperator(operator, plane.kubeconfigPath);
  // Ready to work: a first object reconciled.
  await client.create(redisClusterType, { metadata: { name: 'warmup', namespace: createdNs }, spec: { foo: 'bar' } });
  await watchCreated.readyAt('warmup', 1);
  const before = usage(child.pid);
  const start = now();
  await createAll(client, createdNs, 'rc', OBJECTS);
  await watchCreated.until(() => watchCreated.readyCount() >= OBJECTS + 1);
  result.createdS = (now() - start) / 1000;
  const after = usage(child.pid);
  result.cpuS = after.cpu - before.cpu;
  result.rssMB = after.rss;

  // idle: one object, UPDATES spec updates one at a time.
  const latencies = [];
  for (let i = 1; i <= UPDATES; i++) {
    const sent = now();
    const updated = await client.patch(redisClusterType, { namespace: createdNs, name: 'warmup' }, { type: 'merge', patch: { spec: { foo: `v${i}` } } });
    await watchCreated.readyAt('warmup', updated.metadata.generation);
    latencies.push(now() - sent);
    await sleep(5);
  }
  result.idleP50 = percentile(latencies, 50);
  result.idleP99 = percentile(latencies, 99);
  await stopOperator(child);
  await watchCreated.stop();
  await cleanUp(client, createdNs);

  // backlog: N CRs while it is stopped, then it starts.
  const backlogNs = `${operator.name}-backlog-${round}`;
  await clusterResource(rest, namespaceType).create({ metadata: { name: backlogNs } });
  await createAll(client, backlogNs, 'rc', OBJECTS);
  const watchBacklog = await watchReady(rest, backlogNs);
  await sleep(1000);
  const backlogStart = now();
  child = startOperator(operator, plane.kubeconfigPath);
  await watchBacklog.until(() => watchBacklog.readyCount() >= OBJECTS);
  result.backlogS = (now() - backlogStart) / 1000;
  await stopOperator(child);
  await watchBacklog.stop();
  await cleanUp(client, backlogNs);
  return result;
}

const parent = mkdtempSync(path.join(tmpdir(), 'kop-bench-vs-cr-'));
let plane;
try {
  console.log('building both operators...');
  const project = scaffoldKopOperator(parent);
  const anchor = buildControllerRuntimeOperator();
  const operators = [
    { name: 'kop', command: process.execPath, args: ['dist/src/main.js'], cwd: project },
    { name: 'controller-runtime', command: anchor, args: [], cwd: parent },
  ];
  plane = await startControlPlane({ crds: [path.join(project, 'config/crd/bases')] });
  const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
  const client = createClient(rest);
  const results = { kop: [], 'controller-runtime': [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? operators : [...operators].reverse();
    for (const operator of order) {
      await sleep(1500); // let the apiserver and etcd settle after the previous burst
      const r = await measure(operator, round, plane, client, rest);
      results[operator.name].push(r);
      console.log(
        `round ${round}/${ROUNDS} ${operator.name.padEnd(18)} created ${OBJECTS} -> Ready ${r.createdS.toFixed(2)} s, backlog ${r.backlogS.toFixed(2)} s, ` +
          `idle p50 ${r.idleP50.toFixed(1)} ms p99 ${r.idleP99.toFixed(1)} ms, CPU ${r.cpuS.toFixed(2)} s, RSS ${r.rssMB.toFixed(0)} MB`,
      );
    }
  }
  rest.close();
  const figures = [
    ['created -> all Ready (s)', 'createdS', 1.0],
    ['backlog -> all Ready (s)', 'backlogS', 1.0],
    ['idle update -> Ready p50 (ms)', 'idleP50', undefined],
    ['idle update -> Ready p99 (ms)', 'idleP99', 1.2],
    ['CPU for the created phase (s)', 'cpuS', 1.2],
    ['RSS after the created phase (MB)', 'rssMB', 1.3],
  ];
  console.log(`\nmedians over ${ROUNDS} rounds (min-max), ${OBJECTS} objects, ${UPDATES} updates:`);
  for (const [label, key, aim] of figures) {
    const kop = results.kop.map((r) => r[key]);
    const cr = results['controller-runtime'].map((r) => r[key]);
    const ratio = median(kop) / median(cr);
    const range = (v) => `${median(v).toFixed(2)} (${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)})`;
    console.log(`  ${label.padEnd(34)} kop ${range(kop).padEnd(22)} controller-runtime ${range(cr).padEnd(22)} ratio ${ratio.toFixed(2)}x${aim ? `  (aim <= ${aim}x)` : ''}`);
  }
  console.log('kop with 10,000 cached objects: node bench/controller-rss.mjs (aim under 150 MB)');
} finally {
  killAll();
  await plane?.stop();
  if (existsSync(parent)) rmSync(parent, { recursive: true, force: true });
}
