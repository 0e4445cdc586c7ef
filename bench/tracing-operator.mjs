// What tracing costs the scaffolded operator, as a process on a real control plane: the same
// operator (kop init + create api RedisCluster + generate + npm run build, started as its `npm start`
// starts it) run three ways, taking turns in each of ROUNDS rounds (the order rotates):
//   before  its node_modules/kop/dist replaced by kop/runtime as built from the commit before tracing
//           landed (the parent of the commit that added src/runtime/util/tracing.ts), `git archive`d
//           into a temp folder and compiled with tsc there;
//   off     today's runtime, no OpenTelemetry SDK (what an operator without OTEL_* settings runs);
//   sdk     today's runtime with the trace SDK registered before main (`node --import`): a
//           BatchSpanProcessor and the OTLP/HTTP (protobuf) exporter sending to a sink on loopback
//           that this process runs (it answers 200 and counts what it got).
// Each turn, in fresh namespaces: (1) the operator started and one object seen Ready, then OBJECTS
// RedisClusters created → all Ready on this process's watch (Ready=True at their generation): the
// seconds from the first create, and the operator's CPU (user+sys, /proc) over them; (2) the operator
// stopped, OBJECTS created while none runs, the operator started → all Ready: the seconds from its
// spawn, and its CPU over its whole life until then (BACKLOG=0 skips it). Printed: each turn, then the medians (min–max)
// and the ratios off/before and sdk/before of the medians (issue 27's aim for off: ≤ 1.02×).
// The operator's plumbing (scaffold, start/stop by pid, the keep-alive client, the watch) follows
// bench/operator-vs-controller-runtime.mjs.
// Needs `npm run build`, git, npm with access to its registry, and the binaries (`node bin/kop.js setup-envtest`).
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane } from '../dist/testing/index.js';

const OBJECTS = Number(process.env.OBJECTS ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CREATE_CONCURRENCY = Number(process.env.CREATE_CONCURRENCY ?? 32);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 1500);
const PHASE_TIMEOUT_MS = Number(process.env.PHASE_TIMEOUT_MS ?? 600_000);
const KEEP = process.env.KEEP === '1';
/** BACKLOG=0 skips the second phase (a backlog of OBJECTS, operator started), halving a round. */
const BACKLOG = process.env.BACKLOG !== '0';

const root = fileURLToPath(new URL('..', import.meta.url));
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
let sink;
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
  process.on(signal, async () => {
    if (stoppingOnSignal) return;
    stoppingOnSignal = true;
    log(`\n${signal}: stopping the operator and the control plane`);
    killChildrenSync();
    sink?.close();
    await plane?.stop().catch(() => {});
    process.exit(130);
  });
}

function run(command, args, cwd, options = {}) {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
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

// ---- the operator, and the runtime before tracing ----------------------------------------------
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
  const start = /^node((?: --[\w-]+(?:=\S+)?)*) (\S+)$/.exec(pkg.scripts.start);
  if (!start)
    throw new Error(
      `the generated start script is ${JSON.stringify(pkg.scripts.start)}; teach the bench how to start it`,
    );
  const crdDir = join(dir, 'config/crd/bases');
  return {
    startScript: pkg.scripts.start,
    nodeFlags: start[1].trim().split(' ').filter(Boolean),
    main: start[2],
    crd: join(
      crdDir,
      readdirSync(crdDir).find((f) => f.endsWith('.yaml')),
    ),
  };
}

/** The commit before the one that added src/runtime/util/tracing.ts. */
function commitBeforeTracing() {
  const added = run('git', ['log', '--format=%H', '--diff-filter=A', '--', 'src/runtime/util/tracing.ts'], root)
    .trim()
    .split('\n')
    .at(-1);
  if (!added) throw new Error('git log finds no commit that added src/runtime/util/tracing.ts');
  return {
    added,
    before: run('git', ['rev-parse', `${added}^`], root).trim(),
    subject: run('git', ['log', '-1', '--format=%h %s', `${added}^`], root).trim(),
  };
}

/** kop's dist/ as built from `commit`: its sources `git archive`d into `dir`, compiled with this checkout's tsc. */
function buildDistAt(commit, dir) {
  mkdirSync(dir);
  const archive = join(dir, 'src.tar');
  run(
    'git',
    ['archive', '--format=tar', '-o', archive, commit, 'src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'],
    root,
  );
  run('tar', ['-xf', archive], dir);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], dir);
  return join(dir, 'dist');
}

/** Registers the trace SDK before the operator's main runs (`node --import`). */
function writeSdkPreload(file) {
  writeFileSync(
    file,
    [
      "import { createRequire } from 'node:module';",
      "import { join } from 'node:path';",
      "// The API as the operator resolves it (its project's copy): the API accepts a global registered",
      '// by a copy at least as new as the caller, so registering through an older copy would leave the',
      '// operator without an SDK. The SDK comes from the kop checkout the bench runs from.',
      "const { context, trace } = createRequire(join(process.cwd(), 'package.json'))('@opentelemetry/api');",
      'const require = createRequire(process.env.KOP_BENCH_SDK_FROM);',
      "const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');",
      "const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');",
      "const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');",
      'context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());',
      'trace.setGlobalTracerProvider(',
      '  new BasicTracerProvider({',
      '    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.KOP_BENCH_OTLP_URL }))],',
      '  }),',
      ');',
      '',
    ].join('\n'),
  );
}

/** An OTLP/HTTP endpoint on loopback that accepts every export (an empty protobuf answer) and counts them. */
async function startSink() {
  const counts = { requests: 0, bytes: 0 };
  const server = createHttpServer((req, res) => {
    req.on('data', (chunk) => (counts.bytes += chunk.length));
    req.on('end', () => {
      counts.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1/traces`, counts, close: () => server.close() };
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
  const child = spawn(command, args, { cwd: operator.cwd, env: operator.env, stdio: ['ignore', out, out] });
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

/** A watch on the namespace's RedisClusters from this process: which objects are Ready at their generation. */
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
    ready: (name) => until(() => ready.has(name)),
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

// ---- one variant's two phases in one round ----------------------------------------------------
async function measure(operator, round) {
  const tag = `${operator.name}-${round}`;
  const result = {};
  const createdNs = `created-${tag}`;
  const backlogNs = `backlog-${tag}`;
  for (const ns of [createdNs, backlogNs]) await api('POST', '/api/v1/namespaces', { metadata: { name: ns } });

  let running = await startOperator(operator, plane.kubeconfigPath);
  try {
    const watch = await watchReady(createdNs);
    await api('POST', collection(createdNs), {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'RedisCluster',
      metadata: { name: 'first' },
      spec: { foo: 'a' },
    });
    await watch.ready('first');
    await sleep(SETTLE_MS);
    const cpuBefore = cpuSeconds(running.pid);
    const start = now();
    await createObjects(createdNs, OBJECTS);
    const readyAt = await watch.allReady(OBJECTS + 1);
    result.createdSeconds = (readyAt - start) / 1000;
    result.createdCpu = cpuSeconds(running.pid) - cpuBefore;
    watch.close();
  } finally {
    await stopOperator(running);
  }
  await cleanup(createdNs);
  if (!BACKLOG) return result;

  const watch = await watchReady(backlogNs);
  await createObjects(backlogNs, OBJECTS);
  await sleep(SETTLE_MS);
  running = await startOperator(operator, plane.kubeconfigPath);
  try {
    const readyAt = await watch.allReady(OBJECTS);
    result.backlogSeconds = (readyAt - running.spawnedAt) / 1000;
    result.backlogCpu = cpuSeconds(running.pid);
    watch.close();
  } finally {
    await stopOperator(running);
  }
  await cleanup(backlogNs);
  return result;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// ---- main ---------------------------------------------------------------------------------------
const figures = [
  { key: 'createdSeconds', label: `${OBJECTS} created while running → all Ready`, unit: 's' },
  { key: 'createdCpu', label: `operator CPU (user+sys) for those ${OBJECTS}`, unit: 's' },
  { key: 'backlogSeconds', label: `backlog of ${OBJECTS}, operator started → all Ready`, unit: 's' },
  { key: 'backlogCpu', label: `operator CPU from its start until the backlog is Ready`, unit: 's' },
];

workDir = mkdtempSync(join(tmpdir(), 'kop-bench-tracing-'));
const load = [loadavg()[0]];
log(
  `${new Date().toISOString()}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
try {
  const { added, before, subject } = commitBeforeTracing();
  log(`tracing landed in ${added.slice(0, 7)}; "before" is its parent, ${subject.slice(0, 100)}`);
  log(
    'building kop/runtime at that commit (git archive + tsc) and scaffolding the operator (kop init, create api, generate, npm run build) ...',
  );
  const beforeDist = buildDistAt(before, join(workDir, 'kop-before'));
  const projectDir = join(workDir, 'redis-operator');
  const project = scaffoldKopOperator(projectDir);
  // The same operator with the older runtime: a copy of the project whose installed kop has the old dist/.
  const beforeProjectDir = join(workDir, 'redis-operator-before');
  cpSync(projectDir, beforeProjectDir, { recursive: true, verbatimSymlinks: true });
  const installedKop = join(beforeProjectDir, 'node_modules/kop');
  if (lstatSync(installedKop).isSymbolicLink())
    throw new Error(`${installedKop} is a link; the bench needs kop installed as a copy (its packed tarball)`);
  rmSync(join(installedKop, 'dist'), { recursive: true, force: true });
  cpSync(beforeDist, join(installedKop, 'dist'), { recursive: true });

  sink = await startSink();
  const preload = join(workDir, 'otel-sdk.mjs');
  writeSdkPreload(preload);
  log(`the operator: \`${project.startScript}\` (its npm start script) on Node ${process.version}`);
  const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const operators = [
    { name: 'before', cwd: beforeProjectDir, flags: [], env: baseEnv },
    { name: 'off', cwd: projectDir, flags: [], env: baseEnv },
    {
      name: 'sdk',
      cwd: projectDir,
      flags: ['--import', preload],
      env: { ...baseEnv, KOP_BENCH_SDK_FROM: join(root, 'package.json'), KOP_BENCH_OTLP_URL: sink.url },
    },
  ].map((o) => ({
    ...o,
    command: [process.execPath, ...project.nodeFlags, ...o.flags, project.main],
    logFile: join(workDir, `${o.name}.log`),
  }));

  plane = await startControlPlane({ crds: [project.crd] });
  server = plane.server;
  agent = new Agent({
    keepAlive: true,
    maxSockets: CREATE_CONCURRENCY + 4,
    ca: plane.caData,
    cert: plane.admin.certData,
    key: plane.admin.keyData,
  });

  const results = Object.fromEntries(operators.map((o) => [o.name, []]));
  const exported = { requests: 0, bytes: 0 };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = operators.map((_, i) => operators[(i + round - 1) % operators.length]);
    for (const operator of order) {
      const sent = { ...sink.counts };
      const r = await measure(operator, round);
      results[operator.name].push(r);
      const requests = sink.counts.requests - sent.requests;
      if (operator.name === 'sdk') {
        exported.requests += requests;
        exported.bytes += sink.counts.bytes - sent.bytes;
      } else if (requests > 0) throw new Error(`${operator.name} exported spans; it should run without an SDK`);
      load.push(loadavg()[0]);
      const parts = [
        `${OBJECTS} created → all Ready ${r.createdSeconds.toFixed(2)} s, CPU ${r.createdCpu.toFixed(2)} s`,
      ];
      if (BACKLOG) parts.push(`backlog → all Ready ${r.backlogSeconds.toFixed(2)} s, CPU ${r.backlogCpu.toFixed(2)} s`);
      if (operator.name === 'sdk') parts.push(`${requests} OTLP exports received`);
      log(`round ${round}/${ROUNDS} ${operator.name.padEnd(6)}: ${parts.join('; ')}`);
    }
  }
  if (exported.requests === 0) throw new Error('the sdk variant exported nothing: the SDK did not register');

  log(`\nmedian (min–max) over ${ROUNDS} rounds; ratios of the medians against "before"`);
  for (const figure of figures.filter((f) => BACKLOG || !f.key.startsWith('backlog'))) {
    const values = (name) => results[name].map((r) => r[figure.key]);
    const cell = (name) =>
      `${median(values(name)).toFixed(2)} ${figure.unit} (${Math.min(...values(name)).toFixed(2)}–${Math.max(...values(name)).toFixed(2)})`;
    const ratio = (name) => (median(values(name)) / median(values('before'))).toFixed(3);
    log(
      `${figure.label}: before ${cell('before')}, off ${cell('off')}, sdk ${cell('sdk')}; off/before ${ratio('off')}×, sdk/before ${ratio('sdk')}×`,
    );
  }
  log(
    `sdk: ${exported.requests} OTLP exports, ${(exported.bytes / 1024 / 1024).toFixed(1)} MB of protobuf received by the sink; ` +
      `load average (1 min) during the run ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}`,
  );
} catch (error) {
  for (const name of ['before', 'off', 'sdk'])
    if (existsSync(join(workDir, `${name}.log`)))
      log(`--- ${name}.log (last lines)\n${tail(join(workDir, `${name}.log`))}`);
  throw error;
} finally {
  killChildrenSync();
  agent?.destroy();
  sink?.close();
  await plane?.stop();
  if (!KEEP) rmSync(workDir, { recursive: true, force: true });
  else log(`kept ${workDir}`);
}
