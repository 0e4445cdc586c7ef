// Create latency through the apiserver with and without a mutating + validating webhook
// (issue 12): CREATES (500) sequential creates of each, p50/p99, and the p99 the webhooks add
// (aim: under 5 ms). One control plane (kop/testing's `webhooks` option installs the webhook
// configurations, certificate and port) and one kop/runtime Manager serving a defaulter and a
// validator on it. Both sides create the same kind in the same namespace: the configurations
// match only objects labelled `bench.kop.dev/webhooks: on` (objectSelector), so "without" is the
// same request minus the two webhook calls. The sides alternate in ROUNDS rounds to share the
// machine's load. The manager serves from a child process, as an operator would (WEBHOOK_IN_PROCESS=1
// serves from the bench's own process instead). Needs `npm run build` and the binaries (`node bin/kop.js setup-envtest`).
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Manager, FieldError, ValidationError, RestClient, loadClientConfig, silentLogger } from '../dist/runtime/index.js';
import { ResourceClient } from '../dist/runtime/client/index.js';
import { startControlPlane } from '../dist/testing/index.js';

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

/** config/webhook as controller-gen writes it for the two webhooks, plus the objectSelector. */
function webhookManifests(kind, prefix, name) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks: [
      {
        name: `${prefix}gizmo-v1.kb.io`,
        admissionReviewVersions: ['v1'],
        clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: `/${prefix === 'm' ? 'mutate' : 'validate'}-test-kop-dev-v1-gizmo` } },
        failurePolicy: 'Fail',
        sideEffects: 'None',
        rules: [{ apiGroups: ['test.kop.dev'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['gizmos'] }],
        objectSelector: { matchLabels: { [LABEL]: 'on' } },
      },
    ],
  };
}

/** A manager serving the bench's defaulter and validator; resolves once the webhook server listens. */
async function startManager({ kubeconfig, host, port, certDir }) {
  const served = new Manager({ kubeconfig, metricsBindAddress: '0', healthProbeBindAddress: '0', logger: silentLogger, webhookServer: { host, port, certDir } });
  served
    .webhook(gizmoType)
    .withDefaulter({
      default(gizmo) {
        gizmo.spec.color ??= 'blue';
      },
    })
    .withValidator({
      validateCreate(gizmo) {
        if (gizmo.spec.size > 10) throw new ValidationError(FieldError.invalid('spec.size', gizmo.spec.size, 'must be at most 10'));
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
  [webhookManifests('MutatingWebhookConfiguration', 'm', 'mutating-webhook-configuration'), webhookManifests('ValidatingWebhookConfiguration', 'v', 'validating-webhook-configuration')]
    .map((doc) => `---\n${JSON.stringify(doc)}\n`)
    .join(''),
);

const plane = await startControlPlane({ crds: [crds], webhooks: { paths: [webhookDir] } });
try {
  const serving = plane.webhook;
  // The manager runs in a process of its own, as an operator's does: on this bench's event loop it
  // would share every pause (GC, the client's own JSON work) with the webhook calls it serves.
  if (process.env.WEBHOOK_IN_PROCESS === '1') {
    manager = await startManager({ kubeconfig: plane.kubeconfigPath, ...serving });
  } else {
    server = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
      env: { ...process.env, KOP_BENCH_SERVE: JSON.stringify({ kubeconfig: plane.kubeconfigPath, host: serving.host, port: serving.port, certDir: serving.certDir }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((resolve, reject) => {
      server.stdout.on('data', (chunk) => String(chunk).includes('serving') && resolve());
      server.once('exit', (code) => reject(new Error(`the webhook server process exited with ${code}`)));
    });
  }

  const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
  const gizmos = new ResourceClient(rest, gizmoType, NS);
  let serial = 0;
  const create = async (webhooks) => {
    const name = `g-${String(serial++).padStart(5, '0')}`;
    const labels = webhooks ? { [LABEL]: 'on' } : {};
    const t = now();
    const created = await gizmos.create({ apiVersion: 'test.kop.dev/v1', kind: 'Gizmo', metadata: { name, labels }, spec: { size: 3 } });
    const ms = now() - t;
    // The defaulter ran exactly when the webhooks were meant to.
    if ((created.spec.color === 'blue') !== webhooks) throw new Error(`create ${name}: webhooks ${webhooks ? 'skipped' : 'called'}`);
    return ms;
  };

  // Warm-up: the kind's first create (slow in kube-apiserver), connections, JIT on both sides.
  for (let i = 0; i < WARMUP; i++) {
    await create(false);
    await create(true);
  }
  const results = { without: [], with: [] };
  const perRound = Math.ceil(CREATES / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const webhooks of order) {
      const into = webhooks ? results.with : results.without;
      for (let i = 0; i < perRound && into.length < CREATES; i++) into.push(await create(webhooks));
    }
  }
  rest.close();

  const row = (label, values) => `${label.padEnd(34)} p50 ${percentile(values, 50).toFixed(2).padStart(6)} ms  p99 ${percentile(values, 99).toFixed(2).padStart(6)} ms`;
  console.log(`control plane ${plane.server}; ${CREATES} creates per side in ${ROUNDS} alternating rounds`);
  console.log(row('create, no webhooks', results.without));
  console.log(row('create, mutating + validating', results.with));
  const addedP50 = percentile(results.with, 50) - percentile(results.without, 50);
  const addedP99 = percentile(results.with, 99) - percentile(results.without, 99);
  console.log(`webhooks add p50 ${addedP50.toFixed(2)} ms, p99 ${addedP99.toFixed(2)} ms (aim: p99 < 5 ms)`);
} finally {
  if (manager) {
    await manager.stop();
    await running;
    manager.rest.close();
  }
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  await plane.stop();
  rmSync(work, { recursive: true, force: true });
}
