// Create latency through the apiserver with and without a mutating + validating webhook
// (issue 12): CREATES (500) sequential creates per side, p50/p99, and the p99 the webhooks add,
// side by side with controller-runtime's webhook server as the anchor (the figure is the ratio
// of what each adds). One control plane (kop/testing's `webhooks` option installs the webhook
// configurations, certificate and port); one kop/runtime Manager serving a defaulter and a
// validator on that port, and controller-runtime v0.23's webhook.Server serving the same two
// (bench/controller-runtime-webhook, built with `go build` into bench/.cache/) on another port
// with the same certificate. All sides create the same kind in the same namespace: each pair of
// webhook configurations matches only objects labelled `bench.kop.dev/webhooks: kop` or `: cr`
// (objectSelector), so "without" is the same request minus the two webhook calls. The sides
// alternate in ROUNDS rounds to share the machine's load. Both servers run as child processes, as
// operators would (WEBHOOK_IN_PROCESS=1 serves kop's from the bench's own process instead;
// ANCHOR=0 skips controller-runtime). Needs `npm run build`, Go, and the binaries (`node bin/kop.js setup-envtest`).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Manager, FieldError, ValidationError, silentLogger } from '../dist/runtime/index.js';
import { RestClient, loadClientConfig, DynamicClient } from '../dist/runtime/client/index.js';
import { startControlPlane } from '../dist/testing/index.js';
import { createServer } from 'node:net';

const CREATES = Number(process.env.CREATES ?? 500);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const WARMUP = Number(process.env.WARMUP ?? 50);
const NS = 'default';
const crds = fileURLToPath(new URL('../test/testing/fixtures/webhook-project/config/crd/bases', import.meta.url));
const gizmoType = { group: 'test.kop.dev', version: 'v1', resource: 'gizmos', kind: 'Gizmo', namespaced: true };
const LABEL = 'bench.kop.dev/webhooks';

const now = () => Number(process.hrtime.bigint()) / 1e6;
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

const ANCHOR = process.env.ANCHOR !== '0';
const SERVERS = ANCHOR ? ['kop', 'cr'] : ['kop'];
const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * config/webhook as controller-gen writes it for the two webhooks, once per server, each pair
 * selecting the objects labelled for its server.
 */
function webhookManifests(kind, prefix, name) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks: SERVERS.map((server) => ({
      name: `${prefix}gizmo-v1-${server}.kb.io`,
      admissionReviewVersions: ['v1'],
      clientConfig: {
        service: {
          name: 'webhook-service',
          namespace: 'system',
          path: `/${prefix === 'm' ? 'mutate' : 'validate'}-test-kop-dev-v1-gizmo`,
        },
      },
      failurePolicy: 'Fail',
      sideEffects: 'None',
      rules: [
        { apiGroups: ['test.kop.dev'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['gizmos'] },
      ],
      objectSelector: { matchLabels: { [LABEL]: server } },
    })),
  };
}

/** Points the controller-runtime webhooks of both configurations at its own port. */
async function pointAnchorAt(rest, port) {
  for (const resource of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
    const base = `/apis/admissionregistration.k8s.io/v1/${resource}`;
    const list = await rest.get(base);
    for (const configuration of list.items) {
      for (const webhook of configuration.webhooks) {
        if (webhook.name.endsWith('-cr.kb.io'))
          webhook.clientConfig.url = webhook.clientConfig.url.replace(/:\d+\//, `:${port}/`);
      }
      await rest.put(`${base}/${configuration.metadata.name}`, configuration);
    }
  }
}

/** A port free on `host` now (the kernel's pick; nothing else on this machine races the bench for it). */
function freePort(host) {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Starts a webhook server child and resolves once it prints "serving". */
async function startServerProcess(command, args, env) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => String(chunk).includes('serving') && resolve());
    child.once('exit', (code) => reject(new Error(`the webhook server ${command} exited with ${code}`)));
  });
  return child;
}

async function stopServerProcess(child) {
  if (!child || child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** A manager serving the bench's defaulter and validator; resolves once the webhook server listens. */
async function startManager({ kubeconfig, host, port, certDir }) {
  const served = new Manager({
    kubeconfig,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: silentLogger,
    webhookServer: { host, port, certDir },
  });
  served
    .webhook(gizmoType)
    .withDefaulter({
      default(gizmo) {
        gizmo.spec.color ??= 'blue';
      },
    })
    .withValidator({
      validateCreate(gizmo) {
        if (gizmo.spec.size > 10)
          throw new ValidationError(FieldError.invalid('spec.size', gizmo.spec.size, 'must be at most 10'));
      },
      validateUpdate: () => undefined,
      validateDelete: () => undefined,
    })
    .complete();
  running = served.start();
  while (!served.webhookAddress) await new Promise((r) => setTimeout(r, 10));
  return served;
}

let manager;
let running;
let server;
let anchor;
if (process.env.KOP_BENCH_SERVE) {
  // The child: serve until SIGTERM.
  const served = await startManager(JSON.parse(process.env.KOP_BENCH_SERVE));
  process.stdout.write('serving\n');
  process.once('SIGTERM', () => void served.stop().then(() => process.exit(0)));
  await new Promise(() => {});
}

const work = mkdtempSync(path.join(tmpdir(), 'kop-webhook-latency-'));
const webhookDir = path.join(work, 'config', 'webhook');
mkdirSync(webhookDir, { recursive: true });
writeFileSync(
  path.join(webhookDir, 'manifests.yaml'),
  [
    webhookManifests('MutatingWebhookConfiguration', 'm', 'mutating-webhook-configuration'),
    webhookManifests('ValidatingWebhookConfiguration', 'v', 'validating-webhook-configuration'),
  ]
    .map((doc) => `---\n${JSON.stringify(doc)}\n`)
    .join(''),
);

const anchorBinary = path.join(root, 'bench/.cache/controller-runtime-webhook');
if (ANCHOR) {
  mkdirSync(path.join(root, 'bench/.cache'), { recursive: true });
  execFileSync('go', ['build', '-o', anchorBinary, '.'], {
    cwd: path.join(root, 'bench/controller-runtime-webhook'),
    stdio: 'inherit',
    env: { ...process.env, GOFLAGS: '-mod=mod' },
  });
}

const plane = await startControlPlane({ crds: [crds], webhooks: { paths: [webhookDir] } });
try {
  const serving = plane.webhook;
  // The manager runs in a process of its own, as an operator's does: on this bench's event loop it
  // would share every pause (GC, the client's own JSON work) with the webhook calls it serves.
  if (process.env.WEBHOOK_IN_PROCESS === '1') {
    manager = await startManager({ kubeconfig: plane.kubeconfigPath, ...serving });
  } else {
    server = await startServerProcess(process.execPath, [fileURLToPath(import.meta.url)], {
      KOP_BENCH_SERVE: JSON.stringify({
        kubeconfig: plane.kubeconfigPath,
        host: serving.host,
        port: serving.port,
        certDir: serving.certDir,
      }),
    });
  }

  const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
  if (ANCHOR) {
    const anchorPort = await freePort(serving.host);
    anchor = await startServerProcess(anchorBinary, [
      '--host',
      serving.host,
      '--port',
      String(anchorPort),
      '--cert-dir',
      serving.certDir,
    ]);
    await pointAnchorAt(rest, anchorPort);
  }
  const gizmos = new DynamicClient(rest).resource(gizmoType, gizmoType.kind).inNamespace(NS);
  let serial = 0;
  /** One create through `side`'s webhooks ('none': no webhook matches), in ms. */
  const create = async (side) => {
    const name = `g-${String(serial++).padStart(5, '0')}`;
    const labels = side === 'none' ? {} : { [LABEL]: side };
    const t = now();
    const created = await gizmos.create({
      apiVersion: 'test.kop.dev/v1',
      kind: 'Gizmo',
      metadata: { name, labels },
      spec: { size: 3 },
    });
    const ms = now() - t;
    // The defaulter ran exactly when the webhooks were meant to.
    if ((created.spec.color === 'blue') !== (side !== 'none'))
      throw new Error(`create ${name} (${side}): the defaulter ${side === 'none' ? 'ran' : 'did not run'}`);
    return ms;
  };

  const sides = ['none', ...SERVERS];
  // Warm-up: the kind's first create (slow in kube-apiserver), connections, JIT on every side; and
  // the validator really refuses on each server.
  for (let i = 0; i < WARMUP; i++) for (const side of sides) await create(side);
  for (const side of SERVERS) {
    const refused = await gizmos
      .create({
        apiVersion: 'test.kop.dev/v1',
        kind: 'Gizmo',
        metadata: { name: `too-big-${side}`, labels: { [LABEL]: side } },
        spec: { size: 11 },
      })
      .then(
        () => false,
        (error) => error.status === 422 || error.statusCode === 422 || /at most 10/.test(String(error)),
      );
    if (!refused) throw new Error(`the ${side} validator let spec.size 11 through`);
  }
  const results = Object.fromEntries(sides.map((side) => [side, []]));
  const perRound = Math.ceil(CREATES / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order so no side always runs first or last in a round.
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    for (const side of order) {
      for (let i = 0; i < perRound && results[side].length < CREATES; i++) results[side].push(await create(side));
    }
  }
  rest.close();

  const row = (label, values) =>
    `${label.padEnd(50)} p50 ${percentile(values, 50).toFixed(2).padStart(6)} ms  p99 ${percentile(values, 99).toFixed(2).padStart(6)} ms`;
  console.log(`control plane ${plane.server}; ${CREATES} creates per side in ${ROUNDS} rotating rounds`);
  console.log(row('create, no webhooks', results.none));
  console.log(row('create, kop mutating + validating', results.kop));
  if (ANCHOR) console.log(row('create, controller-runtime mutating + validating', results.cr));
  const added = (side, p) => percentile(results[side], p) - percentile(results.none, p);
  console.log(`kop's webhooks add p50 ${added('kop', 50).toFixed(2)} ms, p99 ${added('kop', 99).toFixed(2)} ms`);
  if (ANCHOR) {
    console.log(`controller-runtime's add p50 ${added('cr', 50).toFixed(2)} ms, p99 ${added('cr', 99).toFixed(2)} ms`);
    const ratio = (p) => (percentile(results.kop, p) / percentile(results.cr, p)).toFixed(2);
    console.log(`create with webhooks, kop / controller-runtime: p50 ${ratio(50)}×, p99 ${ratio(99)}×`);
  }
} finally {
  await stopServerProcess(anchor);
  if (manager) {
    await manager.stop();
    await running;
    manager.rest.close();
  }
  await stopServerProcess(server);
  await plane.stop();
  rmSync(work, { recursive: true, force: true });
}
