// Sharding across replicas (issue 26, part 5), on one real control plane (Widget CRD):
//  1. one replica (no sharding) reconciles OBJECTS Widgets, each reconcile waiting RECONCILE_MS for
//     simulated external work, 1 worker: time until every Widget was reconciled once;
//  2. REPLICAS replicas sharding the same number of Widgets (leader election on, the sharder on the
//     leader), 1 worker each, started together: time until every Widget was reconciled once by the
//     replica holding it, and the throughput ratio against (1); each replica's cached fraction;
//  2b. steady state, after (1) and after (2), objects already labelled: the replicas' reconciles
//     paused, every Widget updated (its spec changes), the reconciles resumed: time from the resume
//     until every Widget was reconciled after its update, REPLICAS shards against one replica. No
//     label patches in this phase, and the updates (paced by the apiserver) are not in the time:
//     each shard is bound by its own worker;
//  3. a replica that is not the leader SIGKILLed: time until every Widget it held was reconciled by
//     another replica (aim: lease duration + 5 s);
//  and, over 2 and 3, every reconcile's start and end on this machine's clock: objects reconciled by
//     two replicas at once (aim: none).
// Aims (issue 26): throughput >= 2.5x (from unlabelled objects and in the steady state), cached fraction <= 0.4, takeover <= lease duration + 5 s.
// Each replica is a child process (this script with --replica). Needs `npm run build` and the binaries.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadavg, cpus } from 'node:os';

const OBJECTS = Number(process.env.OBJECTS ?? 3000);
const REPLICAS = Number(process.env.REPLICAS ?? 3);
const RECONCILE_MS = Number(process.env.RECONCILE_MS ?? 50);
const LEASE_MS = Number(process.env.LEASE_MS ?? 15_000);
const widgetResource = { group: 'test.kop.dev', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true };
const self = fileURLToPath(import.meta.url);

if (process.argv[2] === '--replica') await replicaMain(process.argv.slice(3));
else await main();

/** A replica: a manager reconciling Widgets in one namespace, sharded or not; reports each reconcile to the parent. */
async function replicaMain([identity, namespace, kubeconfig, sharded]) {
  const { Manager, silentLogger } = await import('../dist/runtime/index.js');
  const { RestClient, loadClientConfig } = await import('../dist/runtime/client/index.js');
  const rest = new RestClient(loadClientConfig({ kubeconfig }), { qps: Infinity });
  const manager = new Manager({
    rest,
    namespace,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
    ...(sharded === '1'
      ? {
          leaderElection: true,
          leaderElectionId: 'bench-leader',
          leaderElectionNamespace: namespace,
          leaderElectionIdentity: identity,
          leaseDurationMs: LEASE_MS,
          renewDeadlineMs: (LEASE_MS * 2) / 3,
          retryPeriodMs: Math.max(500, LEASE_MS / 7.5),
          sharding: { name: 'bench', types: [widgetResource], identity },
        }
      : {}),
  });
  let batch = [];
  const flush = () => {
    if (batch.length && process.connected) process.send({ spans: batch });
    batch = [];
  };
  setInterval(flush, 100).unref();
  // The bench's steady-state phase pauses the reconciles while it updates every Widget.
  let resume;
  let paused;
  manager
    .controller('widget')
    .for(widgetResource)
    .complete(async (request) => {
      await paused;
      const start = performance.timeOrigin + performance.now();
      await new Promise((resolve) => setTimeout(resolve, RECONCILE_MS));
      batch.push([request.name, start, performance.timeOrigin + performance.now()]);
    });
  process.on('message', (message) => {
    if (message === 'report') {
      const informer = manager.cluster.informers.find((i) => i.name.startsWith('Widget.'));
      if (process.connected)
        process.send({ report: { leader: manager.isLeader, cached: informer ? informer.indexer.keys() : [] } });
    }
    if (message === 'stop') void manager.stop();
    if (message === 'pause' && !paused) paused = new Promise((resolve) => (resume = resolve));
    if (message === 'resume' && paused) {
      resume();
      paused = undefined;
    }
  });
  try {
    await manager.start();
  } catch (err) {
    // A lost Lease under load, say: the bench's figures then include the handover it causes.
    console.error(`replica ${identity} stopped: ${err.message}`);
  }
  flush();
  process.exit(0);
}

async function main() {
  const { startControlPlane } = await import('../dist/testing/index.js');
  const { RestClient, loadClientConfig, DynamicClient } = await import('../dist/runtime/client/index.js');
  const { coreV1NamespaceType } = await import('../dist/runtime/builtin/index.js');
  const crd = fileURLToPath(new URL('../test/runtime/controller/fixtures/widget-crd.yaml', import.meta.url));
  console.log(
    `sharding bench: ${OBJECTS} Widgets, ${RECONCILE_MS} ms per reconcile, 1 worker per replica, ${REPLICAS} shards, lease ${LEASE_MS / 1000} s; ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(1)}`,
  );
  const plane = await startControlPlane({ crds: [crd] });
  const children = new Set();
  const cleanup = async () => {
    for (const child of children) child.kill('SIGKILL');
    await plane.stop();
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
    const dynamic = new DynamicClient(rest);
    const create = async (namespace) => {
      await dynamic.resource(coreV1NamespaceType, coreV1NamespaceType.kind).create({ metadata: { name: namespace } });
      const widgets = dynamic.resource(widgetResource, widgetResource.kind).inNamespace(namespace);
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < OBJECTS) {
            const i = next++;
            await widgets.create({ metadata: { name: `w-${String(i).padStart(5, '0')}` }, spec: { size: i } });
          }
        }),
      );
    };
    /** Starts a replica; its reconciles go to `spans` as { replica, name, start, end }. */
    const start = (identity, namespace, sharded, spans) => {
      const child = fork(self, ['--replica', identity, namespace, plane.kubeconfigPath, sharded ? '1' : '0'], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.add(child);
      const replica = { identity, child, waiting: undefined };
      child.on('message', (message) => {
        if (message.spans)
          for (const [name, s, e] of message.spans) spans.push({ replica: identity, name, start: s, end: e });
        if (message.report && replica.waiting) replica.waiting(message.report);
      });
      child.on('exit', () => children.delete(child));
      child.on('error', () => undefined);
      replica.report = () =>
        new Promise((resolve) => {
          replica.waiting = resolve;
          if (child.connected) child.send('report');
          else resolve({ leader: false, cached: [] });
        });
      return replica;
    };
    const until = async (check, timeoutMs, what) => {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const now = () => performance.timeOrigin + performance.now();
    const allReconciled = (spans) => () => new Set(spans.map((s) => s.name)).size >= OBJECTS;
    /**
     * With `replicas`' reconciles paused, updates every Widget of `namespace` (16 at once); then
     * resumes them and times until each Widget was reconciled after its update.
     */
    const steadyState = async (namespace, spans, replicas) => {
      const widgets = dynamic.resource(widgetResource, widgetResource.kind).inNamespace(namespace);
      const updated = new Map();
      for (const r of replicas) if (r.child.connected) r.child.send('pause');
      const patching = now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < OBJECTS) {
            const name = `w-${String(next++).padStart(5, '0')}`;
            updated.set(name, now());
            await widgets.patch(name, { type: 'merge', patch: { spec: { size: -1 } } });
          }
        }),
      );
      const patchedSeconds = (now() - patching) / 1000;
      const started = now();
      for (const r of replicas) if (r.child.connected) r.child.send('resume');
      await until(
        () =>
          new Set(spans.filter((s) => s.start >= (updated.get(s.name) ?? Infinity)).map((s) => s.name)).size >= OBJECTS,
        30 * 60_000,
        `the steady-state reconciles in ${namespace}`,
      );
      return { seconds: (now() - started) / 1000, patchedSeconds };
    };
    const stopAll = async (replicas) => {
      await Promise.all(
        replicas.map(
          (r) =>
            new Promise((resolve) => {
              if (r.child.exitCode !== null || r.child.signalCode !== null) return resolve();
              r.child.once('exit', resolve);
              if (r.child.connected) r.child.send('stop');
            }),
        ),
      );
    };

    // 1. One replica.
    await create('single');
    const singleSpans = [];
    const singleStart = now();
    const single = start('single', 'single', false, singleSpans);
    await until(allReconciled(singleSpans), 30 * 60_000, 'the single replica');
    const singleSeconds = (now() - singleStart) / 1000;
    console.log(
      `1 replica: ${OBJECTS} reconciled in ${singleSeconds.toFixed(1)} s (${(OBJECTS / singleSeconds).toFixed(1)}/s)`,
    );
    const singleSteady = await steadyState('single', singleSpans, [single]);
    console.log(
      `1 replica, steady state: ${OBJECTS} updated (in ${singleSteady.patchedSeconds.toFixed(1)} s, reconciles paused), then reconciled in ${singleSteady.seconds.toFixed(1)} s (${(OBJECTS / singleSteady.seconds).toFixed(1)}/s)`,
    );
    await stopAll([single]);

    // 2. Shards.
    await create('sharded');
    const spans = [];
    const shardedStart = now();
    const replicas = Array.from({ length: REPLICAS }, (_, i) => start(`shard-${i}`, 'sharded', true, spans));
    await until(allReconciled(spans), 30 * 60_000, 'the shards');
    const shardedSeconds = (now() - shardedStart) / 1000;
    console.log(
      `${REPLICAS} shards: ${OBJECTS} reconciled in ${shardedSeconds.toFixed(1)} s (${(OBJECTS / shardedSeconds).toFixed(1)}/s): ${(singleSeconds / shardedSeconds).toFixed(2)}x the single replica (aim >= 2.5x)`,
    );
    // Cached fractions once the split is steady (every replica's cache, summed, holds each object once).
    let reports = [];
    for (let i = 0; i < 100; i++) {
      reports = await Promise.all(replicas.map((r) => r.report()));
      const held = reports.flatMap((r) => r.cached);
      if (held.length === OBJECTS && new Set(held).size === OBJECTS) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    console.log(
      `cached fraction per replica: ${reports.map((r, i) => `${replicas[i].identity}${r.leader ? ' (leader)' : ''} ${(r.cached.length / OBJECTS).toFixed(3)}`).join(', ')} (aim <= 0.4)`,
    );
    const shardedSteady = await steadyState('sharded', spans, replicas);
    console.log(
      `${REPLICAS} shards, steady state: ${OBJECTS} updated (in ${shardedSteady.patchedSeconds.toFixed(1)} s, reconciles paused), then reconciled in ${shardedSteady.seconds.toFixed(1)} s (${(OBJECTS / shardedSteady.seconds).toFixed(1)}/s): ${(singleSteady.seconds / shardedSteady.seconds).toFixed(2)}x the single replica (aim >= 2.5x)`,
    );

    // 3. SIGKILL a replica that is not the leader.
    const victimIndex = reports.findIndex((r) => !r.leader);
    const victim = replicas[victimIndex];
    const victimKeys = new Set(reports[victimIndex].cached.map((key) => key.slice(key.indexOf('/') + 1)));
    const killedAt = now();
    victim.child.kill('SIGKILL');
    await until(
      () => {
        const taken = new Set(
          spans
            .filter((s) => s.replica !== victim.identity && s.start > killedAt && victimKeys.has(s.name))
            .map((s) => s.name),
        );
        return taken.size === victimKeys.size;
      },
      10 * 60_000,
      'the others to take over',
    );
    const takeover = (now() - killedAt) / 1000;
    const byOthers = spans.filter((s) => s.replica !== victim.identity && s.start > killedAt && victimKeys.has(s.name));
    const firstTaken = (Math.min(...byOthers.map((s) => s.start)) - killedAt) / 1000;
    // Reconciling them takes (held / other replicas) x RECONCILE_MS at least, with one worker each.
    const floor = (victimKeys.size / (REPLICAS - 1)) * (RECONCILE_MS / 1000);
    console.log(
      `${victim.identity} SIGKILLed holding ${victimKeys.size} Widgets: the first reconciled by another replica ${firstTaken.toFixed(1)} s later (aim <= lease ${LEASE_MS / 1000} s + 5 s), all of them ${takeover.toFixed(1)} s later (reconciling them alone takes >= ${floor.toFixed(1)} s at ${RECONCILE_MS} ms each)`,
    );
    await stopAll(replicas.filter((r) => r !== victim));

    // Overlaps across replicas, per object.
    const byName = new Map();
    for (const s of spans) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
    let overlaps = 0;
    for (const list of byName.values())
      for (let i = 0; i < list.length; i++)
        for (let j = i + 1; j < list.length; j++) {
          const [a, b] = [list[i], list[j]];
          if (a.replica !== b.replica && a.start < b.end && b.start < a.end) overlaps++;
        }
    const moved = [...byName.values()].filter((list) => new Set(list.map((s) => s.replica)).size > 1).length;
    console.log(
      `${spans.length} reconciles by the shards, ${moved} Widgets reconciled by more than one replica over the run, ${overlaps} overlapping pairs (aim 0); load average ${loadavg()[0].toFixed(1)}`,
    );
  } finally {
    await cleanup();
  }
}
