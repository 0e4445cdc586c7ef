// The webhook server alone: AdmissionReviews per second over CONNECTIONS (16) concurrent HTTPS
// keep-alive connections, and the resident set size of the serving process. Aim (issue 12):
// 2,000 reviews/s or more on a 2-core machine.
// The measured process is a Manager with one defaulter and one validator registered (what an
// operator's main.ts runs; no controllers, probes and metrics off); the load comes from this
// process, so both share the machine's cores and the figure is a floor. Half the reviews go to
// the mutating path (a JSON patch is computed), half to the validating one. The serving
// certificate is made with the openssl CLI. Needs `npm run build`.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const SECONDS = Number(process.env.SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.WARMUP_SECONDS ?? 2);

if (process.argv[2] === 'server') {
  // The measured process: only the manager and its webhook server live here.
  const { Manager, FieldError, ValidationError, silentLogger } = await import('../dist/runtime/index.js');
  const widgetType = { group: 'bench.kop.dev', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true };
  const manager = new Manager({
    logger: silentLogger,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    webhookServer: { host: '127.0.0.1', port: 0, certDir: process.argv[3] },
  });
  manager
    .webhook(widgetType)
    .withDefaulter({
      default(widget) {
        widget.spec.replicas ??= 3;
        widget.spec.template.labels = { ...widget.spec.template.labels, 'app.kubernetes.io/managed-by': 'kop' };
      },
    })
    .withValidator({
      validateCreate(widget) {
        if (widget.spec.replicas > 100)
          throw new ValidationError(FieldError.invalid('spec.replicas', widget.spec.replicas, 'must be at most 100'));
        return widget.spec.replicas > 50 ? ['many replicas'] : [];
      },
      validateUpdate: () => undefined,
      validateDelete: () => undefined,
    })
    .complete();
  const running = manager.start();
  while (!manager.webhookAddress) await new Promise((r) => setTimeout(r, 10));
  process.stdout.write(`${JSON.stringify({ address: manager.webhookAddress, rss: process.memoryUsage().rss })}\n`);
  process.stdin.on('data', (line) => {
    if (String(line).trim() === 'memory') {
      process.stdout.write(
        `${JSON.stringify({ rss: process.memoryUsage().rss, peak: process.resourceUsage().maxRSS * 1024, heapUsed: process.memoryUsage().heapUsed })}\n`,
      );
    } else
      void manager
        .stop()
        .then(() => running)
        .then(() => process.exit(0));
  });
} else {
  const dir = mkdtempSync(path.join(tmpdir(), 'kop-webhook-bench-'));
  const sslConfig = path.join(dir, 'openssl.cnf');
  writeFileSync(
    sslConfig,
    '[req]\ndistinguished_name=dn\n[dn]\n[ext]\nsubjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n',
  );
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=webhook-bench',
      '-keyout',
      path.join(dir, 'tls.key'),
      '-out',
      path.join(dir, 'tls.crt'),
      '-config',
      sslConfig,
      '-extensions',
      'ext',
    ],
    { stdio: 'ignore' },
  );
  const ca = readFileSync(path.join(dir, 'tls.crt'), 'utf8');

  const server = spawn(process.execPath, [fileURLToPath(import.meta.url), 'server', dir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = [];
  let waiting;
  let buffer = '';
  server.stdout.on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffer.slice(0, newline)));
      buffer = buffer.slice(newline + 1);
      waiting?.();
    }
  });
  const nextLine = async () => {
    while (lines.length === 0) await new Promise((r) => (waiting = r));
    return lines.shift();
  };
  const { address, rss: idleRss } = await nextLine();
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONNECTIONS, ca });

  // A Deployment-sized object: about 1.5 KB of JSON, as real reviews carry.
  const object = (i) => ({
    apiVersion: 'bench.kop.dev/v1',
    kind: 'Widget',
    metadata: {
      name: `w-${i}`,
      namespace: 'bench',
      labels: { app: 'bench', tier: 'web', index: String(i) },
      annotations: { 'bench.kop.dev/note': 'x'.repeat(200) },
    },
    spec: {
      replicas: i % 2 === 0 ? undefined : 5,
      template: {
        labels: { app: 'bench' },
        containers: [
          {
            name: 'app',
            image: 'registry.example.com/app:1.2.3',
            ports: [{ containerPort: 8080, name: 'http' }],
            env: Array.from({ length: 8 }, (_, k) => ({ name: `VAR_${k}`, value: `value-${k}` })),
          },
        ],
      },
    },
  });
  const review = (i) =>
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: `uid-${i}`,
        kind: { group: 'bench.kop.dev', version: 'v1', kind: 'Widget' },
        resource: { group: 'bench.kop.dev', version: 'v1', resource: 'widgets' },
        operation: 'CREATE',
        namespace: 'bench',
        name: `w-${i}`,
        userInfo: { username: 'bench' },
        object: object(i),
        dryRun: false,
      },
    });
  const send = (i) =>
    new Promise((resolve, reject) => {
      const body = review(i);
      const req = https.request(
        {
          host,
          port,
          agent,
          method: 'POST',
          path: `${i % 2 === 0 ? '/mutate' : '/validate'}-bench-kop-dev-v1-widget?timeout=10s`,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => {
            if (res.statusCode !== 200 || !JSON.parse(text).response.allowed)
              reject(new Error(`review ${i}: ${res.statusCode} ${text.slice(0, 200)}`));
            else resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  let counter = 0;
  const run = async (seconds) => {
    const latencies = [];
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          const started = performance.now();
          await send(counter++);
          latencies.push(performance.now() - started);
        }
      }),
    );
    return latencies;
  };
  try {
    await run(WARMUP_SECONDS);
    const started = performance.now();
    const latencies = await run(SECONDS);
    const elapsed = (performance.now() - started) / 1000;
    server.stdin.write('memory\n');
    const memory = await nextLine();
    latencies.sort((a, b) => a - b);
    const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2);
    const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `webhook server alone, ${CONNECTIONS} concurrent HTTPS keep-alive connections, ${SECONDS} s (after ${WARMUP_SECONDS} s warm-up), half mutating, half validating`,
    );
    console.log(`  reviews/s: ${Math.round(latencies.length / elapsed)} (${latencies.length} reviews; aim >= 2000)`);
    console.log(`  latency ms: p50 ${at(0.5)}  p99 ${at(0.99)}  max ${at(1)}`);
    console.log(
      `  server RSS: ${mb(memory.rss)} MB under load (peak ${mb(memory.peak)} MB, idle at start ${mb(idleRss)} MB, heap used ${mb(memory.heapUsed)} MB)`,
    );
  } finally {
    agent.destroy();
    server.stdin.write('stop\n');
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}
