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
//     until the watch sees Ready at the new generation (p50/p99); then, IDLE_RSS_MS (20 s) later,
//     the operator's RSS at rest;
//  3. the operator stopped, its objects' finalizers removed and the objects deleted; OBJECTS CRs
//     created while no operator runs; the operator started -> all Ready (seconds from its spawn).
// The objects are created from this process over HTTPS with keep-alive, CREATE_CONCURRENCY in
// flight and no client-side limit, the same for both operators.
// BASELINES=<git rev>[,<git rev>...] adds, for each, the same scaffolded project running kop/runtime
// as built from that commit (`git archive` + tsc, swapped into a copy of the project's installed
// kop: bench/lib/operator-bench.mjs), as a third operator taking its turn in every round: today's
// runtime before and after a change, and controller-runtime, in one run on one control plane.
// FLAG_VARIANTS='<flags>[;<flags>...]' adds, for each set, today's project started with those Node
// flags added to its start script's, taking its turn the same way (printed like a baseline).
// Printed: the machine and its load, each round's figures, then per operator the median and
// min–max, the ratio kop / controller-runtime of the medians and the aims of issue 10 beside them
// (printed, not asserted), and with BASELINES each round's ratios (kop / controller-runtime, and
// today / baseline) with their median: other work on a shared machine moves all operators of a
// round together, so a round's ratio is steadier than its times. RSS is also printed in its
// anonymous and file-backed parts, and beside two floors measured each round with the operator's
// flags: a Node process that only loaded node:https, and one that has also run (see nodeFloor).
// PLAIN_NODE=0 leaves out the third operator taking its turn by default: bench/plain-node-operator,
// the same writes with Node's built-ins alone (no kop, no client library), run with kop's Node
// flags: the floor of a Node operator, against which the RSS aims are read as well.
// kop's RSS with 10,000 cached objects is bench/controller-rss.mjs's figure: run here
// afterwards (RSS_10K=0 skips it).
// Needs `npm run build`, Go, npm with access to its registry, and the binaries
// (`node bin/kop.js setup-envtest`).
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startControlPlane } from '../dist/testing/index.js';
import {
  backlogToReady,
  collection,
  commitOf,
  cpuSeconds,
  log,
  machineLine,
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
  trackChild,
  untrackChild,
} from './lib/operator-bench.mjs';

const OBJECTS = Number(process.env.OBJECTS ?? 1000);
const UPDATES = Number(process.env.UPDATES ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CREATE_CONCURRENCY = Number(process.env.CREATE_CONCURRENCY ?? 32);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 1500);
const PHASE_TIMEOUT_MS = Number(process.env.PHASE_TIMEOUT_MS ?? 600_000);
const KEEP = process.env.KEEP === '1';
/** How long the operator idles (after the updates) before its RSS at rest is read; 0 skips it. */
const IDLE_RSS_MS = Number(process.env.IDLE_RSS_MS ?? 20_000);
/** Git revisions whose kop/runtime runs beside today's (BASELINES=4be57df,HEAD~3). */
const BASELINES = (process.env.BASELINES ?? '').split(',').filter(Boolean);
/** Node flags to try on today's operator, each set an operator of its own (FLAG_VARIANTS='--optimize-for-size;--v8-pool-size=1'). */
const FLAG_VARIANTS = (process.env.FLAG_VARIANTS ?? '')
  .split(';')
  .map((set) => set.trim().split(/\s+/).filter(Boolean))
  .filter((set) => set.length > 0);

/** Whether the plain Node operator takes its turn too (see there). */
const PLAIN_NODE = process.env.PLAIN_NODE !== '0';

const goDir = join(root, 'bench/controller-runtime-operator');
const plainNodeMain = join(root, 'bench/plain-node-operator/main.mjs');
const goBinary = join(root, 'bench/.cache/controller-runtime-operator');

const bench = operatorBench({ name: 'operators', keep: KEEP });
const { workDir } = bench;
let client;

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
 * operator as issue 26 defines it, beside which the RSS aim is read.
 * With `server`, the floor of a Node process that has *run*: it also makes one HTTPS request to
 * the apiserver (TLS handshake, HTTP parser, JSON.parse) and runs one function hot enough for
 * V8's optimizing compiler to compile it. Any process that works for a while does both; their
 * code pages in the node binary (file-backed RSS, about 4 MB) are Node's cost, as a Go
 * operator's TLS and runtime code pages are the Go binary's, which the aim does not count either.
 */
async function nodeFloor(nodeFlags, server) {
  const script = server
    ? `const https = await import('node:https');
       await new Promise((resolve) => https.get(${JSON.stringify(`${server.replace(/\/$/, '')}/version`)},
         { rejectUnauthorized: false }, (res) => { let body = ''; res.on('data', (c) => (body += c));
           res.on('end', () => { try { JSON.parse(body); } catch {} resolve(); }); }).on('error', resolve));
       const twice = (x) => x * 2 + 1; let sum = 0; for (let i = 0; i < 2e7; i++) sum += twice(i);
       globalThis.sum = sum; setInterval(() => {}, 60_000);`
    : "await import('node:https'); setInterval(() => {}, 60_000);";
  const child = spawn(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], { stdio: 'ignore' });
  trackChild(child);
  try {
    await sleep(SETTLE_MS);
    return rss(child.pid);
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve),
    );
    untrackChild(child);
  }
}

// ---- the two operators ------------------------------------------------------------------------
function buildControllerRuntimeOperator() {
  mkdirSync(join(root, 'bench/.cache'), { recursive: true });
  run('go', ['build', '-o', goBinary, '.'], goDir, { env: { ...process.env, GOFLAGS: '-mod=mod' } });
}

// ---- one operator's phases in one round -------------------------------------------------------
async function measure(operator, round) {
  const tag = `${operator.short}-${round}`;
  const result = {};
  const createdNs = `created-${tag}`;
  const backlogNs = `backlog-${tag}`;
  for (const ns of [createdNs, backlogNs]) await client.createNamespace(ns);

  // 1. created while running; 2. idle updates.
  const running = await startOperator(operator, bench.plane.kubeconfigPath);
  try {
    const watch = await client.watchReady(createdNs);
    // Working, not only serving its probes: one object (the idle phase's) reconciled to Ready.
    const first = await client.createObject(createdNs, 'idle', 'u0');
    await watch.readyAt('idle', first.metadata.generation);
    await sleep(SETTLE_MS);
    const cpuBefore = cpuSeconds(running.pid);
    const start = now();
    await client.createObjects(createdNs, OBJECTS);
    result.createsSeconds = (now() - start) / 1000;
    const readyAt = await watch.allReady(OBJECTS + 1);
    result.createdSeconds = (readyAt - start) / 1000;
    result.cpuSeconds = cpuSeconds(running.pid) - cpuBefore;
    Object.assign(result, rss(running.pid));

    await sleep(SETTLE_MS);
    const latencies = [];
    for (let i = 1; i <= UPDATES; i++) {
      const sent = now();
      const patched = await client.api(
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
    if (IDLE_RSS_MS > 0) {
      // At rest: the burst's garbage collected and what the runtimes give back given back.
      await sleep(IDLE_RSS_MS);
      const idle = rss(running.pid);
      Object.assign(result, { rssIdleMb: idle.rssMb, rssIdleAnonMb: idle.rssAnonMb });
    }
  } finally {
    await stopOperator(running);
  }
  await client.cleanup(createdNs);

  // 3. backlog.
  const backlog = await backlogToReady(client, operator, bench.plane.kubeconfigPath, backlogNs, {
    objects: OBJECTS,
    settleMs: SETTLE_MS,
  });
  result.backlogSeconds = backlog.seconds;
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
  ...(IDLE_RSS_MS > 0
    ? [
        {
          key: 'rssIdleMb',
          label: `operator RSS at rest, ${IDLE_RSS_MS / 1000} s after the updates`,
          unit: 'MB',
          digits: 1,
        },
        { key: 'rssIdleAnonMb', label: `  of it anonymous`, unit: 'MB', digits: 1 },
      ]
    : []),
];

const CR = 'controller-runtime';
const results = {};
/** A figure's ratio `name / reference` in each round. */
const roundRatios = (name, reference, key) => results[name].map((r, i) => r[key] / results[reference][i][key]);
const load = [loadavg()[0]];
log(machineLine());
try {
  log(
    'building the controller-runtime operator (go build) and scaffolding the kop operator (kop init, create api, generate, npm run build) ...',
  );
  buildControllerRuntimeOperator();
  const projectDir = join(workDir, 'redis-operator');
  const kopProject = scaffoldKopOperator(projectDir);
  log(`kop operator: \`${kopProject.startScript}\` (its npm start script) on Node ${process.version}`);
  const kopOperator = (name, short, cwd, extraFlags = []) => ({
    name,
    short,
    command: [process.execPath, ...kopProject.nodeFlags, ...extraFlags, kopProject.main],
    cwd,
    logFile: join(workDir, `${short}.log`),
  });
  const baselines = BASELINES.map((rev, i) => {
    const short = commitOf(rev).commit.slice(0, 7);
    const at = projectWithRuntimeAt(rev, projectDir, join(workDir, `project-${short}`), join(workDir, `kop-${short}`));
    log(`kop@${short}: the same project with kop/runtime from ${at.subject.slice(0, 100)}`);
    return kopOperator(`kop@${short}`, `kop-${i}`, at.dir);
  });
  for (const [i, flags] of FLAG_VARIANTS.entries()) {
    log(`kop ${flags.join(' ')}: the same project started with these Node flags added`);
    baselines.push(kopOperator(`kop ${flags.join(' ')}`, `kop-flags-${i}`, projectDir, flags));
  }
  const PLAIN = 'plain Node';
  if (PLAIN_NODE) {
    log(
      `${PLAIN}: bench/plain-node-operator, the same writes with Node's built-ins alone, started with kop's Node flags`,
    );
    baselines.push({
      name: PLAIN,
      short: 'plain',
      command: [process.execPath, ...kopProject.nodeFlags, plainNodeMain],
      cwd: workDir,
      logFile: join(workDir, 'plain-node.log'),
    });
  }
  const operators = [
    kopOperator('kop', 'kop', projectDir),
    ...baselines,
    { name: CR, short: 'cr', command: [goBinary], cwd: workDir, logFile: join(workDir, `${CR}.log`) },
  ];
  for (const operator of operators) results[operator.name] = [];
  const width = Math.max(...operators.map((o) => o.name.length));

  bench.plane = await startControlPlane({ crds: [kopProject.crd] });
  client = bench.connect({ concurrency: CREATE_CONCURRENCY, phaseTimeoutMs: PHASE_TIMEOUT_MS });

  const floors = [];
  const workingFloors = [];
  for (let round = 1; round <= ROUNDS; round++) {
    floors.push(await nodeFloor(kopProject.nodeFlags));
    workingFloors.push(await nodeFloor(kopProject.nodeFlags, bench.plane.server));
    // Each operator goes first in turn (with two, the order alternates).
    const order = operators.map((_, i) => operators[(i + round - 1) % operators.length]);
    for (const operator of order) {
      const r = await measure(operator, round);
      results[operator.name].push(r);
      load.push(loadavg()[0]);
      log(
        `round ${round}/${ROUNDS} ${operator.name.padEnd(width)}: ${OBJECTS} created → all Ready ${r.createdSeconds.toFixed(2)} s (creates ${r.createsSeconds.toFixed(2)} s), ` +
          `backlog → all Ready ${r.backlogSeconds.toFixed(2)} s, idle p50/p99 ${r.idleP50.toFixed(1)}/${r.idleP99.toFixed(1)} ms, CPU ${r.cpuSeconds.toFixed(2)} s, ` +
          `RSS ${r.rssMb.toFixed(1)} MB (anonymous ${r.rssAnonMb.toFixed(1)}, file-backed ${r.rssFileMb.toFixed(1)})` +
          (r.rssIdleMb === undefined
            ? ''
            : `, at rest ${r.rssIdleMb.toFixed(1)} MB (anonymous ${r.rssIdleAnonMb.toFixed(1)})`) +
          `; load ${loadavg()[0].toFixed(1)}`,
      );
    }
  }

  const kops = operators.filter((o) => o.name !== CR).map((o) => o.name);
  log(
    `\nmedian (min–max) over ${ROUNDS} rounds; ratio = kop / controller-runtime of the medians; aims from issue 10 (printed, not checked)`,
  );
  for (const figure of figures) {
    const cell = (name) => {
      const values = results[name].map((r) => r[figure.key]);
      const f = (v) => v.toFixed(figure.digits);
      return `${name} ${f(median(values))} ${figure.unit} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
    };
    const parts = kops.map((name) => {
      const ratio = median(results[name].map((r) => r[figure.key])) / median(results[CR].map((r) => r[figure.key]));
      const aim = figure.aim ? ` aim ${figure.aimText}: ${ratio <= figure.aim ? 'met' : 'not met'}` : '';
      return `${kops.length > 1 ? `${name} ` : ''}ratio ${ratio.toFixed(2)}×${aim}`;
    });
    log(`${figure.label}: ${operators.map((o) => cell(o.name)).join(', ')}; ${parts.join('; ')}`);
  }
  if (baselines.length > 0) {
    // A round's operators share that round's load, so its ratios are steadier than its times.
    log(`\nratios per round (${Array.from({ length: ROUNDS }, (_, i) => i + 1).join(', ')}) and their median`);
    const pairs = [...kops.map((name) => [name, CR]), ...baselines.map((b) => ['kop', b.name])];
    for (const figure of figures.filter((f) => !f.label.startsWith(' '))) {
      const cells = pairs.map(([a, b]) => {
        const ratios = roundRatios(a, b, figure.key);
        return `${a} / ${b} ${ratios.map((x) => x.toFixed(2)).join(' ')} → ${median(ratios).toFixed(2)}×`;
      });
      log(`${figure.label}: ${cells.join('; ')}`);
    }
  }
  // The RSS aim beside what Node itself takes before any operator code runs.
  const medianRss = (samples) =>
    Object.fromEntries(['rssMb', 'rssAnonMb', 'rssFileMb'].map((key) => [key, median(samples.map((f) => f[key]))]));
  const floor = medianRss(floors);
  const workingFloor = medianRss(workingFloors);
  const rssAim = 1.3 * median(results[CR].map((r) => r.rssMb));
  const kopRss = median(results.kop.map((r) => r.rssMb));
  const parts = (f) =>
    `RSS ${f.rssMb.toFixed(1)} MB (anonymous ${f.rssAnonMb.toFixed(1)}, file-backed ${f.rssFileMb.toFixed(1)})`;
  log(
    `Node's floor (node ${kopProject.nodeFlags.join(' ')} with node:https loaded, no operator code): ${parts(floor)}; ` +
      `the RSS aim of issue 10 is ${rssAim.toFixed(1)} MB, ${(rssAim - floor.rssMb).toFixed(1)} MB above the floor; ` +
      `kop's operator is ${(kopRss - floor.rssMb).toFixed(1)} MB above it`,
  );
  log(
    `Node's floor after running (one HTTPS request to the apiserver, one function compiled by V8's optimizing compiler): ` +
      `${parts(workingFloor)}; kop's operator is ${(kopRss - workingFloor.rssMb).toFixed(1)} MB above it`,
  );
  // Issue 26's RSS aim: no more than Node's floor plus what controller-runtime's operator holds
  // anonymously (heaps, stacks), both measured in this run; read against both floors.
  const crAnon = median(results[CR].map((r) => r.rssAnonMb));
  for (const [name, f] of [
    ["Node's floor", floor],
    ["Node's floor after running", workingFloor],
  ]) {
    const aim = f.rssMb + crAnon;
    log(
      `RSS after ${OBJECTS} objects: kop ${kopRss.toFixed(1)} MB against ${name} + controller-runtime's anonymous memory ` +
        `${f.rssMb.toFixed(1)} + ${crAnon.toFixed(1)} = ${aim.toFixed(1)} MB (issue 26's aim): ${kopRss <= aim ? 'met' : 'not met'}`,
    );
  }
  if (PLAIN_NODE) {
    // The floor of a Node operator doing this work, read against issue 26's aim on both floors.
    const plain = medianRss(results[PLAIN]);
    const against = [floor, workingFloor]
      .map((f, i) => {
        const aim = f.rssMb + crAnon;
        return `${i === 0 ? "on Node's floor" : 'on the floor after running'} ${aim.toFixed(1)} MB: ${plain.rssMb <= aim ? 'met' : 'not met'}`;
      })
      .join(', ');
    log(
      `${PLAIN} operator after ${OBJECTS} objects: ${parts(plain)}, ${(plain.rssMb - workingFloor.rssMb).toFixed(1)} MB ` +
        `above Node's floor after running; issue 26's aim ${against}; ` +
        `kop is ${(kopRss - plain.rssMb).toFixed(1)} MB above it (${(kopRss / plain.rssMb).toFixed(2)}×)`,
    );
  }
  const kopAnon = median(results.kop.map((r) => r.rssAnonMb));
  log(
    `anonymous memory above the floor after running: kop ${(kopAnon - workingFloor.rssAnonMb).toFixed(1)} MB, ` +
      `controller-runtime's in all ${crAnon.toFixed(1)} MB`,
  );
  log(`load average (1 min) during the run ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}`);
} catch (error) {
  for (const name of readdirSync(workDir).filter((f) => f.endsWith('.log')))
    log(`--- ${name} (last lines)\n${tail(join(workDir, name))}`);
  throw error;
} finally {
  await bench.close();
}

if (process.env.RSS_10K !== '0') {
  log('\nkop RSS with 10,000 cached objects (bench/controller-rss.mjs; aim < 150 MB):');
  const child = spawn(process.execPath, [join(root, 'bench/controller-rss.mjs')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  trackChild(child);
  const code = await new Promise((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  untrackChild(child);
  if (code !== 0) process.exitCode = code;
}
