// Failover with a warm standby against a cold one (issue 26, part 4): OBJECTS ConfigMaps of about
// 1 KB in one namespace, watched by a kop manager's controller; two replicas of it run as child
// processes with leader election on one Lease. Each round, for each variant in turn (the order
// alternates between rounds):
//  - replica A starts, takes the Lease and reconciles every ConfigMap;
//  - replica B starts and stands by: with `warmStandby: true` it lists and watches the
//    ConfigMaps while it waits; without it (kop's default) it holds none of them;
//  - A is killed with SIGKILL (no Lease release): B takes the Lease once it expires, then
//    reconciles; B is then stopped with SIGTERM.
// Printed per round and as medians: kill -> B's first reconcile, B's Lease acquired -> first
// reconcile, acquired -> every object reconciled, and B's RSS while it stood by; then the ratio
// warm / cold. The Lease duration dominates kill -> first reconcile in both variants; acquired ->
// first reconcile is what a warm cache saves. A reconcile does no API call (the figure is the
// cache's, not the reconciler's). kop runs with the Node flags of the scaffold's `npm start`.
// A new leader that loses its Lease before its first reconcile (a cold one whose list starves
// its renewals on a busy machine) is counted and printed, not timed.
// Env: OBJECTS (10000), ROUNDS (3), LEASE_MS (15000, kop's default; the renew deadline and the
// retry period keep kop's proportions, 10 s and 2 s of 15 s).
// Needs `npm run build` and the binaries (`node bin/kop.js setup-envtest`).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OBJECTS = Number(process.env.OBJECTS ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LEASE_MS = Number(process.env.LEASE_MS ?? 15_000);
const RENEW_MS = Math.round((LEASE_MS * 2) / 3);
const RETRY_MS = Math.round((LEASE_MS * 2) / 15);
const CREATE_CONCURRENCY = Number(process.env.CREATE_CONCURRENCY ?? 64);
const PHASE_TIMEOUT_MS = Number(process.env.PHASE_TIMEOUT_MS ?? 300_000);
const NAMESPACE = 'failover';
const LEASE_NAME = 'failover-leader';

/** One JSON line on stdout: what the parent reads. */
const emit = (event, fields = {}) => process.stdout.write(`${JSON.stringify({ event, at: Date.now(), ...fields })}\n`);

if (process.argv[2] === 'replica') {
  // A measured replica: a manager with one controller over the namespace's ConfigMaps.
  const [kubeconfig, identity, warm] = process.argv.slice(3);
  const { Manager } = await import('../dist/runtime/index.js');
  const { coreV1ConfigMapType } = await import('../dist/runtime/builtin/index.js');
  // The elector's log line marks the moment the Lease is held.
  const logger = {
    debug: () => undefined,
    info: (message) => message === 'acquired the leader lease' && emit('acquired'),
    warn: () => undefined,
    error: (message, fields) => process.stderr.write(`${identity}: ${message} ${JSON.stringify(fields ?? {})}\n`),
    child: () => logger,
  };
  const manager = new Manager({
    kubeconfig,
    namespace: NAMESPACE,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    leaderElection: true,
    leaderElectionId: LEASE_NAME,
    leaderElectionNamespace: NAMESPACE,
    leaderElectionIdentity: identity,
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: RENEW_MS,
    retryPeriodMs: RETRY_MS,
    warmStandby: warm === 'warm',
    logger,
  });
  let reconciled = 0;
  manager
    .controller('configmap')
    .for(coreV1ConfigMapType)
    .complete(() => {
      reconciled++;
      if (reconciled === 1) emit('first-reconcile');
      if (reconciled === OBJECTS) emit('all-reconciled');
    });
  // Runs on every replica once the caches the manager starts with have synced: B is standing by.
  manager.add({
    needLeaderElection: false,
    start: () => {
      const cached = manager.cluster.informers.reduce((sum, i) => sum + i.stats.objects, 0);
      // A moment for the heap to settle before reading the resident set.
      setTimeout(() => emit('standing-by', { cached, rss: process.memoryUsage.rss() }), 1000);
    },
  });
  manager.handleSignals();
  await manager.start();
  process.exit(0);
}

const root = fileURLToPath(new URL('..', import.meta.url));
function scaffoldNodeFlags() {
  const template = readFileSync(join(root, 'templates/init/package.json.hbs'), 'utf8');
  const start = /"start": "node((?: --[\w-]+(?:=\S+)?)*) \S+"/.exec(template);
  if (!start) throw new Error('no `node [flags] <main>` start script in templates/init/package.json.hbs');
  return start[1].trim().split(' ').filter(Boolean);
}
const nodeFlags = scaffoldNodeFlags();

// ---- processes this bench starts: killed by pid on every way out ----------------------------
const children = new Set();
function killChildren() {
  for (const child of children) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.on('exit', killChildren);

/** A replica process and the events it reported, by name. */
function startReplica(kubeconfig, identity, variant) {
  const child = spawn(
    process.execPath,
    [...nodeFlags, fileURLToPath(import.meta.url), 'replica', kubeconfig, identity, variant],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let lostLease = false;
  child.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    if (String(chunk).includes('lost the leader lease')) lostLease = true;
  });
  children.add(child);
  const events = new Map();
  const waiters = [];
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const event = JSON.parse(line);
      events.set(event.event, event);
      for (const w of waiters.splice(0)) w();
    }
  });
  const exited = new Promise((resolve) =>
    // 'close': after its output has been read too.
    child.once('close', (code, signal) => {
      children.delete(child);
      for (const w of waiters.splice(0)) w();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    exited,
    lostLease: () => lostLease,
    /** Resolves with the event once the replica reported it; rejects if it exits first or the phase times out. */
    async event(name) {
      const deadline = Date.now() + PHASE_TIMEOUT_MS;
      while (!events.has(name)) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${identity} exited before "${name}"`);
        if (Date.now() > deadline) throw new Error(`${identity}: no "${name}" within ${PHASE_TIMEOUT_MS} ms`);
        await new Promise((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 1000);
        });
      }
      return events.get(name);
    },
  };
}

async function stopReplica(replica) {
  if (replica.child.exitCode !== null || replica.child.signalCode !== null) return;
  replica.child.kill('SIGTERM');
  const timer = setTimeout(() => replica.child.kill('SIGKILL'), 30_000);
  await replica.exited;
  clearTimeout(timer);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const seconds = (ms) => (ms / 1000).toFixed(2);
const mb = (b) => (b / 1024 / 1024).toFixed(1);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const { RestClient, loadClientConfig, DynamicClient } = await import('../dist/runtime/client/index.js');
const { coreV1ConfigMapType, coreV1NamespaceType } = await import('../dist/runtime/builtin/index.js');
const { startControlPlane } = await import('../dist/testing/index.js');
const plane = await startControlPlane();
const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
try {
  const dynamic = new DynamicClient(rest);
  await dynamic.resource(coreV1NamespaceType, coreV1NamespaceType.kind).create({ metadata: { name: NAMESPACE } });
  const configMaps = dynamic.resource(coreV1ConfigMapType, coreV1ConfigMapType.kind).inNamespace(NAMESPACE);
  let next = 0;
  const createStart = Date.now();
  await Promise.all(
    Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (next < OBJECTS) {
        const i = next++;
        await configMaps.create({
          metadata: { name: `cm-${String(i).padStart(6, '0')}`, labels: { app: 'bench' } },
          data: { key: `value-${i}`, payload: 'x'.repeat(800) },
        });
      }
    }),
  );
  console.log(`created ${OBJECTS} ConfigMaps of about 1 KB in ${seconds(Date.now() - createStart)} s`);
  console.log(
    `node ${process.version} ${nodeFlags.join(' ')}; lease ${LEASE_MS} ms, renew deadline ${RENEW_MS} ms, retry ${RETRY_MS} ms; ${ROUNDS} rounds`,
  );

  const VARIANTS = ['cold', 'warm'];
  const results = new Map(VARIANTS.map((v) => [v, []]));
  const lost = new Map(VARIANTS.map((v) => [v, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
    for (const variant of order) {
      const a = startReplica(plane.kubeconfigPath, `a-${variant}-${round}`, variant);
      await a.event('acquired');
      await a.event('all-reconciled');
      const b = startReplica(plane.kubeconfigPath, `b-${variant}-${round}`, variant);
      const standing = await b.event('standing-by');
      // Two renewals by A: B has seen the Lease held and is waiting for it.
      await sleep(LEASE_MS / 3);
      const killedAt = Date.now();
      a.child.kill('SIGKILL');
      await a.exited;
      const acquired = await b.event('acquired');
      let first;
      let all;
      try {
        first = await b.event('first-reconcile');
        all = await b.event('all-reconciled');
      } catch (err) {
        if (b.child.exitCode !== null) await b.exited;
        if (!b.lostLease()) throw err;
        lost.get(variant).push(round + 1);
        console.log(`round ${round + 1} ${variant}: the new leader lost its Lease before reconciling everything`);
        await stopReplica(b);
        continue;
      }
      await stopReplica(b);
      const row = {
        killToFirst: first.at - killedAt,
        acquiredToFirst: first.at - acquired.at,
        acquiredToAll: all.at - acquired.at,
        standbyCached: standing.cached,
        standbyRss: standing.rss,
      };
      if (variant === 'warm' && row.standbyCached < OBJECTS)
        throw new Error(`the warm standby held ${row.standbyCached} of ${OBJECTS} objects`);
      if (variant === 'cold' && row.standbyCached !== 0)
        throw new Error(`the cold standby held ${row.standbyCached} objects`);
      results.get(variant).push(row);
      console.log(
        `round ${round + 1} ${variant}: kill -> first reconcile ${seconds(row.killToFirst)} s, acquired -> first ${seconds(row.acquiredToFirst)} s, acquired -> all ${seconds(row.acquiredToAll)} s; standby held ${row.standbyCached} objects, RSS ${mb(row.standbyRss)} MB`,
      );
    }
  }

  const med = (variant, key) => median(results.get(variant).map((r) => r[key]));
  const range = (variant, key, f) => {
    const xs = results.get(variant).map((r) => r[key]);
    return `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
  };
  for (const variant of VARIANTS) {
    if (lost.get(variant).length > 0)
      console.log(`${variant}: the new leader lost its Lease in round(s) ${lost.get(variant).join(', ')}`);
    if (results.get(variant).length === 0) throw new Error(`no ${variant} round completed`);
  }
  console.log(`\nmedians of the completed rounds, ${OBJECTS} ConfigMaps (min–max):`);
  for (const variant of VARIANTS) {
    console.log(
      `${variant}: kill -> first reconcile ${seconds(med(variant, 'killToFirst'))} s (${range(variant, 'killToFirst', seconds)}), ` +
        `acquired -> first ${seconds(med(variant, 'acquiredToFirst'))} s (${range(variant, 'acquiredToFirst', seconds)}), ` +
        `acquired -> all ${seconds(med(variant, 'acquiredToAll'))} s (${range(variant, 'acquiredToAll', seconds)}), ` +
        `standby RSS ${mb(med(variant, 'standbyRss'))} MB (${range(variant, 'standbyRss', mb)})`,
    );
  }
  const ratio = (key) => (med('warm', key) / med('cold', key)).toFixed(2);
  console.log(
    `warm / cold: kill -> first reconcile ×${ratio('killToFirst')}, acquired -> first ×${ratio('acquiredToFirst')}, acquired -> all ×${ratio('acquiredToAll')}, standby RSS ×${ratio('standbyRss')} (aim: warm <= 0.3× cold)`,
  );
} finally {
  killChildren();
  rest.close();
  await plane.stop();
}
