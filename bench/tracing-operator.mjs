// What tracing costs the scaffolded operator, as a process on a real control plane: the same
// operator (kop init + create api RedisCluster + generate + npm run build, started as its `npm start`
// starts it) run several ways (VARIANTS, default before,off,sdk), taking turns in each of ROUNDS
// rounds (the order rotates):
//   before  its node_modules/kop/dist replaced by kop/runtime as built from the commit before tracing
//           landed (the parent of the commit that added src/runtime/util/tracing.ts, which also
//           brought the rest_client_* metrics), `git archive`d into a temp folder and compiled there;
//   off     today's runtime, no OpenTelemetry SDK (what an operator without OTEL_* settings runs);
//   sdk     today's runtime with the trace SDK registered before main (`node --import`): a
//           BatchSpanProcessor and the OTLP/HTTP (protobuf) exporter sending to a sink on loopback
//           that this process runs (it answers 200 and counts what it got);
//   no-client-metrics  today's runtime without an SDK and with the manager's rest_client_* hook
//           taken out of its dist (separates the client metrics from the spans' code);
//   at:<rev>  the runtime as built from any commit (to place a cost between two commits).
// Each turn, in fresh namespaces: (1) the operator started and one object seen Ready, then OBJECTS
// RedisClusters created → all Ready on this process's watch (Ready=True at their generation): the
// seconds from the first create, and the operator's CPU (user+sys, /proc) over them; (2) the operator
// stopped, OBJECTS created while none runs, the operator started → all Ready: the seconds from its
// spawn, and its CPU over its whole life until then (BACKLOG=0 skips it). Printed: each turn, then
// the medians (min–max) and their ratios against the first variant (issue 27's aim for off/before:
// ≤ 1.02×). CPU_PROF=<dir> runs the operators without an SDK under `node --cpu-prof`.
// The plumbing (scaffold, start/stop by pid, the keep-alive client, the watch) is bench/lib/operator-bench.mjs.
// Needs `npm run build`, git, npm with access to its registry, and the binaries (`node bin/kop.js setup-envtest`).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startControlPlane } from '../dist/testing/index.js';
import {
  backlogToReady,
  copyProject,
  cpuSeconds,
  log,
  machineLine,
  median,
  now,
  operatorBench,
  projectWithRuntimeAt,
  root,
  run,
  scaffoldKopOperator,
  sleep,
  startOperator,
  stopOperator,
  tail,
} from './lib/operator-bench.mjs';

const OBJECTS = Number(process.env.OBJECTS ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CREATE_CONCURRENCY = Number(process.env.CREATE_CONCURRENCY ?? 32);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 1500);
const PHASE_TIMEOUT_MS = Number(process.env.PHASE_TIMEOUT_MS ?? 600_000);
const KEEP = process.env.KEEP === '1';
/** BACKLOG=0 skips the second phase (a backlog of OBJECTS, operator started), halving a round. */
const BACKLOG = process.env.BACKLOG !== '0';

let sink;
const bench = operatorBench({ name: 'tracing', keep: KEEP, onStop: () => sink?.close() });
const { workDir } = bench;
let client;

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

// ---- one variant's two phases in one round ----------------------------------------------------
async function measure(operator, round) {
  const tag = `${operator.name}-${round}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const result = {};
  const createdNs = `created-${tag}`;
  const backlogNs = `backlog-${tag}`;
  for (const ns of [createdNs, backlogNs]) await client.createNamespace(ns);

  const running = await startOperator(operator, bench.plane.kubeconfigPath);
  try {
    const watch = await client.watchReady(createdNs);
    await client.createObject(createdNs, 'first');
    await watch.readyAt('first');
    await sleep(SETTLE_MS);
    const cpuBefore = cpuSeconds(running.pid);
    const start = now();
    await client.createObjects(createdNs, OBJECTS);
    const readyAt = await watch.allReady(OBJECTS + 1);
    result.createdSeconds = (readyAt - start) / 1000;
    result.createdCpu = cpuSeconds(running.pid) - cpuBefore;
    watch.close();
  } finally {
    await stopOperator(running);
  }
  await client.cleanup(createdNs);
  if (!BACKLOG) return result;

  const backlog = await backlogToReady(client, operator, bench.plane.kubeconfigPath, backlogNs, {
    objects: OBJECTS,
    settleMs: SETTLE_MS,
  });
  result.backlogSeconds = backlog.seconds;
  result.backlogCpu = backlog.cpu;
  return result;
}

/**
 * A copy of the project with today's runtime, its manager's client-metrics hook taken out (the
 * one line of dist/runtime/manager/manager.js that attaches the rest_client_* observer): what
 * the operator costs with the spans' code but without the client metrics.
 */
function projectWithoutClientMetrics(projectDir, copyDir) {
  copyProject(projectDir, copyDir);
  const manager = join(copyDir, 'node_modules/kop/dist/runtime/manager/manager.js');
  const source = readFileSync(manager, 'utf8');
  const hook = /^\s*onRestClient: \(rest\) => observeRestCalls\(rest, this\.metrics\.restClient\(\)\),\n/m;
  if (!hook.test(source)) throw new Error(`${manager} has no client-metrics hook line this bench knows how to remove`);
  writeFileSync(manager, source.replace(hook, ''));
  return copyDir;
}

// ---- main ---------------------------------------------------------------------------------------
const figures = [
  { key: 'createdSeconds', label: `${OBJECTS} created while running → all Ready`, unit: 's' },
  { key: 'createdCpu', label: `operator CPU (user+sys) for those ${OBJECTS}`, unit: 's' },
  { key: 'backlogSeconds', label: `backlog of ${OBJECTS}, operator started → all Ready`, unit: 's' },
  { key: 'backlogCpu', label: `operator CPU from its start until the backlog is Ready`, unit: 's' },
];

/**
 * VARIANTS (comma-separated; default before,off,sdk): `before`, `off` and `sdk` as above;
 * `no-client-metrics`, today's runtime with the client metrics unhooked; `at:<git rev>`, the
 * runtime as built from that commit (to place a cost between two commits).
 */
const VARIANTS = (process.env.VARIANTS ?? 'before,off,sdk').split(',').filter(Boolean);
/** CPU_PROF=<dir>: each operator without an SDK runs with `node --cpu-prof` writing into <dir>/<variant>/. */
const CPU_PROF = process.env.CPU_PROF;

const load = [loadavg()[0]];
log(machineLine());
try {
  const unknown = VARIANTS.filter(
    (v) => !['before', 'off', 'sdk', 'no-client-metrics'].includes(v) && !v.startsWith('at:'),
  );
  if (unknown.length > 0)
    throw new Error(`unknown VARIANTS ${unknown.join(', ')}: use before, off, sdk, no-client-metrics, at:<git rev>`);
  log('scaffolding the operator (kop init, create api, generate, npm run build) ...');
  const projectDir = join(workDir, 'redis-operator');
  const project = scaffoldKopOperator(projectDir);
  sink = await startSink();
  const preload = join(workDir, 'otel-sdk.mjs');
  writeSdkPreload(preload);
  log(`the operator: \`${project.startScript}\` (its npm start script) on Node ${process.version}`);
  const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const variants = VARIANTS.map((name, i) => {
    if (name === 'off') return { name, cwd: projectDir, flags: [], env: baseEnv };
    if (name === 'sdk')
      return {
        name,
        cwd: projectDir,
        flags: ['--import', preload],
        env: { ...baseEnv, KOP_BENCH_SDK_FROM: join(root, 'package.json'), KOP_BENCH_OTLP_URL: sink.url },
      };
    if (name === 'no-client-metrics')
      return {
        name,
        cwd: projectWithoutClientMetrics(projectDir, join(workDir, `project-${i}`)),
        flags: [],
        env: baseEnv,
      };
    let rev = name.slice(3);
    if (name === 'before') {
      const { added, before, subject } = commitBeforeTracing();
      log(`tracing landed in ${added.slice(0, 7)}; "before" is its parent, ${subject.slice(0, 100)}`);
      rev = before;
    }
    const at = projectWithRuntimeAt(rev, projectDir, join(workDir, `project-${i}`), join(workDir, `kop-${i}`));
    return { name, cwd: at.dir, flags: [], env: baseEnv };
  });
  const operators = variants.map((o) => ({
    ...o,
    command: [
      process.execPath,
      ...project.nodeFlags,
      ...(CPU_PROF && o.name !== 'sdk'
        ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, o.name.replace(/[^\w.-]/g, '_'))}`]
        : []),
      ...o.flags,
      project.main,
    ],
    logFile: join(workDir, `${o.name.replace(/[^\w.-]/g, '_')}.log`),
  }));
  const reference = operators[0].name;

  bench.plane = await startControlPlane({ crds: [project.crd] });
  client = bench.connect({ concurrency: CREATE_CONCURRENCY, phaseTimeoutMs: PHASE_TIMEOUT_MS });

  const results = Object.fromEntries(operators.map((o) => [o.name, []]));
  const exported = { requests: 0, bytes: 0 };
  const width = Math.max(...operators.map((o) => o.name.length));
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
      log(
        `round ${round}/${ROUNDS} ${operator.name.padEnd(width)}: ${parts.join('; ')}; load ${loadavg()[0].toFixed(1)}`,
      );
    }
  }
  if (results.sdk && exported.requests === 0)
    throw new Error('the sdk variant exported nothing: the SDK did not register');

  log(`\nmedian (min–max) over ${ROUNDS} rounds; ratios of the medians against "${reference}"`);
  for (const figure of figures.filter((f) => BACKLOG || !f.key.startsWith('backlog'))) {
    const values = (name) => results[name].map((r) => r[figure.key]);
    const cell = (name) =>
      `${name} ${median(values(name)).toFixed(2)} ${figure.unit} (${Math.min(...values(name)).toFixed(2)}–${Math.max(...values(name)).toFixed(2)})`;
    const ratio = (name) => `${name}/${reference} ${(median(values(name)) / median(values(reference))).toFixed(3)}×`;
    const others = operators.slice(1).map((o) => o.name);
    log(`${figure.label}: ${operators.map((o) => cell(o.name)).join(', ')}; ${others.map(ratio).join(', ')}`);
  }
  if (results.sdk)
    log(
      `sdk: ${exported.requests} OTLP exports, ${(exported.bytes / 1024 / 1024).toFixed(1)} MB of protobuf received by the sink`,
    );
  log(`load average (1 min) during the run ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}`);
} catch (error) {
  for (const name of VARIANTS) {
    const file = join(workDir, `${name.replace(/[^\w.-]/g, '_')}.log`);
    if (existsSync(file)) log(`--- ${name}.log (last lines)\n${tail(file)}`);
  }
  throw error;
} finally {
  await bench.close();
}
