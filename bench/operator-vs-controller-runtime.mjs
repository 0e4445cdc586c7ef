// A new user's kop operator side by side with a controller-runtime operator doing the same writes
// (issue 10's figures), alternating on one control plane, ROUNDS rounds:
//  - kop: `kop init` + `kop create api --group cache --version v1alpha1 --kind RedisCluster` +
//    `kop generate` into a temp folder (init's npm install takes kop from this checkout), then
//    `npm run build`; started as its package.json's `start` script does, defaults untouched;
//  - controller-runtime: bench/controller-runtime-operator (v0.23, defaults untouched), built
//    with `go build` into bench/.cache/;
//  both get free ports for metrics and probes by flag, and the CRD kop generated.
// Each round, for each operator in turn (the order alternates between rounds), in fresh namespaces:
//  1. the operator started, one object created and seen Ready (so it is working, not only serving
//     its probes); then OBJECTS CRs created -> all Ready: seconds from the first create until a
//     watch held by this process has seen every object with condition Ready=True and
//     observedGeneration = generation; the operator's CPU (user+sys, /proc) over that time and its
//     RSS (VmRSS) once all are Ready;
//  2. idle update latency: that first object, UPDATES spec patches one at a time, each waiting
//     until the watch sees Ready at the new generation (p50/p99);
//  3. the operator stopped, its objects' finalizers removed and the objects deleted; OBJECTS CRs
//     created while no operator runs; the operator started -> all Ready (seconds from its spawn).
// The objects are created from this process over HTTPS with keep-alive, CREATE_CONCURRENCY in
// flight and no client-side limit, the same for both operators.
// Printed: each round's figures, then per operator the median and min–max, the ratio
// kop / controller-runtime of the medians and the aims of issue 10 beside them (printed, not
// asserted). RSS is also printed in its anonymous and file-backed parts, and beside the floor of
// a Node process that only loaded node:https (measured each round with the operator's flags).
// kop's RSS with 10,000 cached objects is bench/controller-rss.mjs's figure: run here
// afterwards (RSS_10K=0 skips it).
// Needs `npm run build`, Go, npm with access to its registry, and the binaries
// (`node bin/kop.js setup-envtest`).
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane } from '../dist/testing/index.js';

const OBJECTS = Number(process.env.OBJECTS ?? 1000);
const UPDATES = Number(process.env.UPDATES ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CREATE_CONCURRENCY = Number(process.env.CREATE_CONCURRENCY ?? 32);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 1500);
const PHASE_TIMEOUT_MS = Number(process.env.PHASE_TIMEOUT_MS ?? 600_000);
const KEEP = process.env.KEEP === '1';

const root = fileURLToPath(new URL('..', import.meta.url));
const goDir = join(root, 'bench/controller-runtime-operator');
const goBinary = join(root, 'bench/.cache/controller-runtime-operator');
const GROUP = 'cache.example.com';
const VERSION = 'v1alpha1';
const PLURAL = 'redisclusters';
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (line) => process.stdout.write(`${line}\n`);

// ---- processes this bench starts: stopped by pid on every way out ---------------------------
const children = new Set();
let plane;
let workDir;
function killChildrenSync() {
  for (const child of children) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.on('exit', () => {
  killChildrenSync();
  if (workDir && !KEEP) rmSync(workDir, { recursive: true, force: true });
});
let stoppingOnSignal = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  // `on`, not `once`: while this listener is registered kop/testing's own handler leaves the
  // exit to it (and so the temp folder is removed by the 'exit' handler).
  process.on(signal, async () => {
    if (stoppingOnSignal) return;
    stoppingOnSignal = true;
    log(`\n${signal}: stopping the operators and the control plane`);
    // SIGTERM first: the operators stop as they would in a pod, and a controller-rss.mjs child
    // stops its own control plane.
    for (const child of children) child.kill('SIGTERM');
    await Promise.race([
      Promise.all(
        [...children].map(
          (c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', r))),
        ),
      ),
      sleep(10_000),
    ]);
    killChildrenSync();
    await plane?.stop().catch(() => {});
    process.exit(130);
  });
}

function run(command, args, cwd, env = process.env) {
  try {
    return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`, {
      cause: error,
    });
  }
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** utime + stime of a process, in seconds (Linux /proc). */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}
/**
 * Resident set size of a process in MB (Linux /proc), whole and in its two parts: anonymous
 * memory (heaps, stacks, JIT code: the process's own) and file-backed pages (the pages of the
 * program binary and its libraries that it touched).
 */
function rss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)[1]);
  return { rssMb: kb('VmRSS') / 1024, rssAnonMb: kb('RssAnon') / 1024, rssFileMb: kb('RssFile') / 1024 };
}

/**
 * The RSS of a Node process that does nothing but load node:https (which every client of the
 * apiserver needs), started with the kop operator's Node flags: the floor under any Node
 * operator, beside which the RSS aim is read.
 */
async function nodeFloor(nodeFlags) {
  const child = spawn(
    process.execPath,
    [...nodeFlags, '--input-type=module', '-e', "await import('node:https'); setInterval(() => {}, 60_000);"],
    { stdio: 'ignore' },
  );
  children.add(child);
  try {
    await sleep(SETTLE_MS);
    return rss(child.pid);
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve),
    );
    children.delete(child);
  }
}

// ---- the two operators ------------------------------------------------------------------------
function buildControllerRuntimeOperator() {
  mkdirSync(join(root, 'bench/.cache'), { recursive: true });
  run('go', ['build', '-o', goBinary, '.'], goDir, { ...process.env, GOFLAGS: '-mod=mod' });
}

function scaffoldKopOperator(dir) {
  const kop = join(root, 'bin/kop.js');
  mkdirSync(dir);
  run(process.execPath, [kop, 'init', '--domain', 'example.com', '--yes'], dir);
  run(
    process.execPath,
    [kop, 'create', 'api', '--group', GROUP.split('.')[0], '--version', VERSION, '--kind', 'RedisCluster', '--yes'],
    dir,
  );
  run(process.execPath, [kop, 'generate', '--yes'], dir);
  run('npm', ['run', 'build'], dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  // `npm start` is `node [V8/Node flags] <main>`: run that node directly with the same flags, so
  // the pid measured is the operator's.
  const start = /^node((?: --[\w-]+(?:=\S+)?)*) (\S+)$/.exec(pkg.scripts.start);
  if (!start)
    throw new Error(
      `the generated start script is ${JSON.stringify(pkg.scripts.start)}; teach the bench how to start it`,
    );
  const crdDir = join(dir, 'config/crd/bases');
  return {
    startScript: pkg.scripts.start,
    nodeFlags: start[1].trim().split(' ').filter(Boolean),
    main: join(dir, start[2]),
    crd: join(
      crdDir,
      readdirSync(crdDir).find((f) => f.endsWith('.yaml')),
    ),
  };
}

/** Starts an operator; resolves once its /readyz answers 200. */
async function startOperator(operator, kubeconfig) {
  const metrics = await freePort();
  const health = await freePort();
  const flags = [
    '--kubeconfig',
    kubeconfig,
    '--metrics-bind-address',
    `127.0.0.1:${metrics}`,
    '--health-probe-bind-address',
    `127.0.0.1:${health}`,
  ];
  const out = openSync(operator.logFile, 'a');
  const [command, ...args] = [...operator.command, ...flags];
  const spawnedAt = now();
  const child = spawn(command, args, { cwd: operator.cwd, stdio: ['ignore', out, out] });
  closeSync(out);
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.exited = exited;
  let gone;
  exited.then((status) => (gone = status));
  for (;;) {
    if (gone)
      throw new Error(
        `${operator.name} exited before it was ready (${JSON.stringify(gone)}); its log: ${operator.logFile}\n${tail(operator.logFile)}`,
      );
    const ok = await fetch(`http://127.0.0.1:${health}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await sleep(20);
  }
  return { child, pid: child.pid, spawnedAt };
}

async function stopOperator(running) {
  running.child.kill('SIGTERM');
  const stopped = await Promise.race([running.child.exited, sleep(15_000).then(() => undefined)]);
  if (!stopped) {
    running.child.kill('SIGKILL');
    await running.child.exited;
  }
  children.delete(running.child);
}

const tail = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-15).join('\n') : '');

// ---- a plain HTTPS client: keep-alive, no client-side limit -----------------------------------
let agent;
let server;
function api(method, path, body, contentType = 'application/json') {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server);
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = httpsRequest(
      url,
      {
        method,
        agent,
        headers: {
          accept: 'application/json',
          ...(data ? { 'content-type': contentType, 'content-length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          if (res.statusCode >= 300) reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
          else resolve(text ? JSON.parse(text) : undefined);
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
const collection = (ns) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`;
const isReady = (o) =>
  (o.status?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === o.metadata.generation,
  );

async function pool(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}
const createObjects = (ns, count) =>
  pool(count, CREATE_CONCURRENCY, (i) =>
    api('POST', collection(ns), {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'RedisCluster',
      metadata: { name: `rc-${String(i).padStart(5, '0')}` },
      spec: { foo: 'a' },
    }),
  );

/**
 * A watch on the namespace's RedisClusters from this process: tracks which objects are Ready at
 * their generation, and when each object was first seen Ready at each generation.
 */
async function watchReady(ns) {
  const ready = new Set();
  const waiters = [];
  let closed = false;
  let current;
  const list = await api('GET', collection(ns));
  for (const o of list.items) if (isReady(o)) ready.add(o.metadata.name);
  let resourceVersion = list.metadata.resourceVersion;
  const notify = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].done()) {
        waiters[i].resolve(now());
        waiters.splice(i, 1);
      }
    }
  };
  const latest = new Map();
  const connect = () => {
    const url = new URL(
      `${collection(ns)}?watch=1&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`,
      server,
    );
    current = httpsRequest(url, { agent, headers: { accept: 'application/json' } }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (!line.trim()) continue;
          const event = JSON.parse(line);
          if (event.type === 'ERROR') continue; // a 410 would need a relist: phases are far shorter than the watch cache's window
          resourceVersion = event.object.metadata.resourceVersion;
          if (event.type === 'BOOKMARK') continue;
          const o = event.object;
          latest.set(o.metadata.name, o);
          if (event.type !== 'DELETED' && isReady(o)) ready.add(o.metadata.name);
          else ready.delete(o.metadata.name);
        }
        notify();
      });
      res.on('end', () => {
        if (!closed) connect();
      });
    });
    current.on('error', () => {
      if (!closed) setTimeout(connect, 100);
    });
    current.end();
  };
  connect();
  /** Resolves with the time the condition first held. */
  const until = (done) =>
    new Promise((resolve, reject) => {
      if (done()) return resolve(now());
      const timer = setTimeout(
        () => reject(new Error(`${ns}: not there after ${PHASE_TIMEOUT_MS} ms (${ready.size} Ready)`)),
        PHASE_TIMEOUT_MS,
      );
      waiters.push({ done, resolve: (t) => (clearTimeout(timer), resolve(t)) });
    });
  return {
    allReady: (count) => until(() => ready.size >= count),
    readyAt: (name, generation) => until(() => ready.has(name) && latest.get(name)?.metadata.generation >= generation),
    close() {
      closed = true;
      current.destroy();
    },
  };
}

/** With no operator running: drop the finalizers, delete the objects, wait until none is left. */
async function cleanup(ns) {
  const { items } = await api('GET', collection(ns));
  await pool(items.length, CREATE_CONCURRENCY, (i) =>
    api(
      'PATCH',
      `${collection(ns)}/${items[i].metadata.name}`,
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    ),
  );
  await api('DELETE', collection(ns));
  while ((await api('GET', collection(ns))).items.length > 0) await sleep(100);
}

// ---- one operator's phases in one round -------------------------------------------------------
async function measure(operator, round) {
  const tag = `${operator.short}-${round}`;
  const result = {};
  const createdNs = `created-${tag}`;
  const backlogNs = `backlog-${tag}`;
  for (const ns of [createdNs, backlogNs]) await api('POST', '/api/v1/namespaces', { metadata: { name: ns } });

  // 1. created while running; 2. idle updates.
  let running = await startOperator(operator, plane.kubeconfigPath);
  try {
    const watch = await watchReady(createdNs);
    // Working, not only serving its probes: one object (the idle phase's) reconciled to Ready.
    const first = await api('POST', collection(createdNs), {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'RedisCluster',
      metadata: { name: 'idle' },
      spec: { foo: 'u0' },
    });
    await watch.readyAt('idle', first.metadata.generation);
    await sleep(SETTLE_MS);
    const cpuBefore = cpuSeconds(running.pid);
    const start = now();
    await createObjects(createdNs, OBJECTS);
    result.createsSeconds = (now() - start) / 1000;
    const readyAt = await watch.allReady(OBJECTS + 1);
    result.createdSeconds = (readyAt - start) / 1000;
    result.cpuSeconds = cpuSeconds(running.pid) - cpuBefore;
    Object.assign(result, rss(running.pid));

    await sleep(SETTLE_MS);
    const latencies = [];
    for (let i = 1; i <= UPDATES; i++) {
      const sent = now();
      const patched = await api(
        'PATCH',
        `${collection(createdNs)}/idle`,
        { spec: { foo: `u${i}` } },
        'application/merge-patch+json',
      );
      latencies.push((await watch.readyAt('idle', patched.metadata.generation)) - sent);
    }
    result.idleP50 = percentile(latencies, 50);
    result.idleP99 = percentile(latencies, 99);
    watch.close();
  } finally {
    await stopOperator(running);
  }
  await cleanup(createdNs);

  // 3. backlog.
  const watch = await watchReady(backlogNs);
  await createObjects(backlogNs, OBJECTS);
  await sleep(SETTLE_MS);
  running = await startOperator(operator, plane.kubeconfigPath);
  try {
    const readyAt = await watch.allReady(OBJECTS);
    result.backlogSeconds = (readyAt - running.spawnedAt) / 1000;
    watch.close();
  } finally {
    await stopOperator(running);
  }
  await cleanup(backlogNs);
  return result;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const median = (values) => percentile(values, 50);

// ---- main ---------------------------------------------------------------------------------------
const figures = [
  {
    key: 'createdSeconds',
    label: `${OBJECTS} created while running → all Ready`,
    unit: 's',
    digits: 2,
    aim: 1.0,
    aimText: 'time to Ready ≤ 1.0×',
  },
  {
    key: 'backlogSeconds',
    label: `backlog of ${OBJECTS}, operator started → all Ready`,
    unit: 's',
    digits: 2,
    aim: 1.0,
    aimText: 'time to Ready ≤ 1.0×',
  },
  { key: 'idleP50', label: `idle update → Ready seen on a watch, p50 (${UPDATES} updates)`, unit: 'ms', digits: 1 },
  {
    key: 'idleP99',
    label: `idle update → Ready seen on a watch, p99 (${UPDATES} updates)`,
    unit: 'ms',
    digits: 1,
    aim: 1.2,
    aimText: 'idle p99 ≤ 1.2×',
  },
  {
    key: 'cpuSeconds',
    label: `operator CPU (user+sys) for the ${OBJECTS} created`,
    unit: 's',
    digits: 2,
    aim: 1.2,
    aimText: 'CPU ≤ 1.2×',
  },
  { key: 'rssMb', label: `operator RSS after the ${OBJECTS}`, unit: 'MB', digits: 1, aim: 1.3, aimText: 'RSS ≤ 1.3×' },
  { key: 'rssAnonMb', label: `  of it anonymous (heaps, stacks, JIT code)`, unit: 'MB', digits: 1 },
  { key: 'rssFileMb', label: `  of it file-backed (pages of the program binary and libraries)`, unit: 'MB', digits: 1 },
];

workDir = mkdtempSync(join(tmpdir(), 'kop-bench-operators-'));
const results = { kop: [], 'controller-runtime': [] };
try {
  log(
    'building the controller-runtime operator (go build) and scaffolding the kop operator (kop init, create api, generate, npm run build) ...',
  );
  buildControllerRuntimeOperator();
  const kopProject = scaffoldKopOperator(join(workDir, 'redis-operator'));
  log(`kop operator: \`${kopProject.startScript}\` (its npm start script) on Node ${process.version}`);
  const operators = [
    {
      name: 'kop',
      short: 'kop',
      command: [process.execPath, ...kopProject.nodeFlags, kopProject.main],
      cwd: join(workDir, 'redis-operator'),
      logFile: join(workDir, 'kop.log'),
    },
    {
      name: 'controller-runtime',
      short: 'cr',
      command: [goBinary],
      cwd: workDir,
      logFile: join(workDir, 'controller-runtime.log'),
    },
  ];

  plane = await startControlPlane({ crds: [kopProject.crd] });
  server = plane.server;
  agent = new Agent({
    keepAlive: true,
    maxSockets: CREATE_CONCURRENCY + 4,
    ca: plane.caData,
    cert: plane.admin.certData,
    key: plane.admin.keyData,
  });

  const floors = [];
  for (let round = 1; round <= ROUNDS; round++) {
    floors.push(await nodeFloor(kopProject.nodeFlags));
    const order = round % 2 === 1 ? operators : [...operators].reverse();
    for (const operator of order) {
      const r = await measure(operator, round);
      results[operator.name].push(r);
      log(
        `round ${round}/${ROUNDS} ${operator.name.padEnd(18)}: ${OBJECTS} created → all Ready ${r.createdSeconds.toFixed(2)} s (creates ${r.createsSeconds.toFixed(2)} s), ` +
          `backlog → all Ready ${r.backlogSeconds.toFixed(2)} s, idle p50/p99 ${r.idleP50.toFixed(1)}/${r.idleP99.toFixed(1)} ms, CPU ${r.cpuSeconds.toFixed(2)} s, RSS ${r.rssMb.toFixed(1)} MB (anonymous ${r.rssAnonMb.toFixed(1)}, file-backed ${r.rssFileMb.toFixed(1)})`,
      );
    }
  }

  log(
    `\nmedian (min–max) over ${ROUNDS} rounds; ratio = kop / controller-runtime of the medians; aims from issue 10 (printed, not checked)`,
  );
  for (const figure of figures) {
    const cell = (name) => {
      const values = results[name].map((r) => r[figure.key]);
      const f = (v) => v.toFixed(figure.digits);
      return `${f(median(values))} ${figure.unit} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
    };
    const ratio =
      median(results.kop.map((r) => r[figure.key])) / median(results['controller-runtime'].map((r) => r[figure.key]));
    const aim = figure.aim ? `aim ${figure.aimText}: ${ratio <= figure.aim ? 'met' : 'not met'}` : '';
    log(
      `${figure.label}: kop ${cell('kop')}, controller-runtime ${cell('controller-runtime')}; ratio ${ratio.toFixed(2)}× ${aim}`,
    );
  }
  // The RSS aim beside what Node itself takes before any operator code runs.
  const floor = Object.fromEntries(
    ['rssMb', 'rssAnonMb', 'rssFileMb'].map((key) => [key, median(floors.map((f) => f[key]))]),
  );
  const rssAim = 1.3 * median(results['controller-runtime'].map((r) => r.rssMb));
  const kopRss = median(results.kop.map((r) => r.rssMb));
  log(
    `Node's floor (node ${kopProject.nodeFlags.join(' ')} with node:https loaded, no operator code): RSS ${floor.rssMb.toFixed(1)} MB ` +
      `(anonymous ${floor.rssAnonMb.toFixed(1)}, file-backed ${floor.rssFileMb.toFixed(1)}); the RSS aim is ${rssAim.toFixed(1)} MB, ` +
      `${(rssAim - floor.rssMb).toFixed(1)} MB above the floor; kop's operator is ${(kopRss - floor.rssMb).toFixed(1)} MB above it`,
  );
  // Issue 26's RSS aim: no more than Node's floor plus what controller-runtime's operator holds
  // anonymously (heaps, stacks), both measured in this run.
  const crAnon = median(results['controller-runtime'].map((r) => r.rssAnonMb));
  const floorAim = floor.rssMb + crAnon;
  log(
    `RSS after ${OBJECTS} objects: kop ${kopRss.toFixed(1)} MB against Node's floor + controller-runtime's anonymous memory ` +
      `${floor.rssMb.toFixed(1)} + ${crAnon.toFixed(1)} = ${floorAim.toFixed(1)} MB (issue 26's aim): ${kopRss <= floorAim ? 'met' : 'not met'}`,
  );
} catch (error) {
  for (const file of ['kop.log', 'controller-runtime.log'])
    if (existsSync(join(workDir, file))) log(`--- ${file} (last lines)\n${tail(join(workDir, file))}`);
  throw error;
} finally {
  killChildrenSync();
  agent?.destroy();
  await plane?.stop();
  if (!KEEP) rmSync(workDir, { recursive: true, force: true });
  else log(`kept ${workDir}`);
}

if (process.env.RSS_10K !== '0') {
  log('\nkop RSS with 10,000 cached objects (bench/controller-rss.mjs; aim < 150 MB):');
  const child = spawn(process.execPath, [join(root, 'bench/controller-rss.mjs')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.add(child);
  const code = await new Promise((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  children.delete(child);
  if (code !== 0) process.exitCode = code;
}
