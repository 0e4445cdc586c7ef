// The webhook server over real HTTPS on 127.0.0.1, through the manager as an operator runs it:
// routing, bounded bodies, hostile input, TLS versions, certificate rotation on disk, readiness,
// metrics and graceful shutdown.
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import * as path from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  Manager,
  silentLogger,
  type KubernetesObject,
  type Logger,
  type ResourceType,
  type Validator,
} from '../../../src/runtime/index.js';
import { CertificateAuthority } from '../../../src/testing/certificates.js';
import { defaultingPath, validatingPath } from '../../../src/runtime/webhook/index.js';
import { DEFAULT_CERT_DIR } from '../../../src/runtime/webhook/webhook-server.js';
import { FieldError, ValidationError } from '../../../src/runtime/index.js';
import { makeCertDir, post, writePair, type CertDir } from './helpers.js';

interface Widget extends KubernetesObject {
  spec?: { size?: number; slow?: boolean };
}
const widgetType: ResourceType<Widget> = {
  group: 'test.kop.dev',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
};

/** A logger that keeps its lines, to check what the server says. */
function recordingLogger(lines: string[] = []): Logger & { lines: string[] } {
  const logger = {
    lines,
    debug: () => undefined,
    info: (m: string) => void lines.push(`info ${m}`),
    warn: (m: string, f?: Record<string, unknown>) => void lines.push(`warn ${m} ${JSON.stringify(f)}`),
    error: (m: string, f?: Record<string, unknown>) => void lines.push(`error ${m} ${JSON.stringify(f)}`),
    child: () => logger,
  };
  return logger;
}

function review(operation: string, object: unknown, extra: Record<string, unknown> = {}): unknown {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `uid-${Math.random()}`,
      kind: { group: 'test.kop.dev', version: 'v1', kind: 'Widget' },
      operation,
      object,
      name: 'w',
      namespace: 'ns',
      userInfo: {},
      ...extra,
    },
  };
}

const widget: Widget = {
  apiVersion: 'test.kop.dev/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns' },
  spec: { size: 2 },
};

let certs: CertDir;
let manager: Manager;
let running: Promise<void>;
let address: string;
const logger = recordingLogger();
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
let releaseSlow: (() => void) | undefined;
let slowStarted: (() => void) | undefined;

const validator: Validator<Widget> = {
  async validateCreate(object) {
    if (object.spec?.slow) {
      slowStarted?.();
      await new Promise<void>((resolve) => (releaseSlow = resolve));
    }
    if ((object.spec?.size ?? 0) < 1)
      throw new ValidationError(FieldError.invalid('spec.size', object.spec?.size, 'must be at least 1'));
    return [];
  },
  validateUpdate: () => undefined,
  validateDelete: () => undefined,
};

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  certs = await makeCertDir();
  manager = new Manager({
    metricsBindAddress: '0',
    healthProbeBindAddress: '127.0.0.1:0',
    logger,
    gracefulShutdownTimeoutMs: 5_000,
    webhookServer: {
      host: '127.0.0.1',
      port: 0,
      certDir: certs.dir,
      maxRequestBytes: 64 * 1024,
      certPollIntervalMs: 200,
    },
  });
  manager
    .webhook(widgetType)
    .withDefaulter({
      default(object) {
        object.spec = { ...object.spec, size: object.spec?.size ?? 1 };
      },
    })
    .withValidator(validator)
    .complete();
  running = manager.start();
  await new Promise<void>((resolve) => {
    const poll = (): void => void (manager.webhookAddress ? resolve() : setTimeout(poll, 10));
    poll();
  });
  address = manager.webhookAddress!;
});

afterAll(async () => {
  await manager?.stop();
  await running?.catch(() => undefined);
  await certs?.remove();
  process.off('unhandledRejection', onUnhandled);
});

afterEach(() => {
  expect(unhandled).toEqual([]);
});

describe('the webhook server in the manager', () => {
  it('listens where asked and serves the default paths', async () => {
    expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(defaultingPath(widgetType)).toBe('/mutate-test-kop-dev-v1-widget');
    expect(validatingPath(widgetType)).toBe('/validate-test-kop-dev-v1-widget');
    expect(defaultingPath({ group: '', version: 'v1', kind: 'Pod' })).toBe('/mutate--v1-pod');
    const mutated = await post(
      address,
      '/mutate-test-kop-dev-v1-widget?timeout=10s',
      review('CREATE', { ...widget, spec: {} }),
      { ca: certs.ca.certPem },
    );
    expect(mutated.status).toBe(200);
    const response = (JSON.parse(mutated.body) as { response: { allowed: boolean; patch: string } }).response;
    expect(response.allowed).toBe(true);
    expect(JSON.parse(Buffer.from(response.patch, 'base64').toString())).toEqual([
      { op: 'add', path: '/spec/size', value: 1 },
    ]);
    const denied = await post(
      address,
      '/validate-test-kop-dev-v1-widget',
      review('CREATE', { ...widget, spec: { size: 0 } }),
      { ca: certs.ca.certPem },
    );
    expect(JSON.parse(denied.body)).toMatchObject({
      response: {
        allowed: false,
        status: {
          code: 422,
          message: 'Widget.test.kop.dev "w" is invalid: spec.size: Invalid value: 0: must be at least 1',
        },
      },
    });
  });

  it('adds the readiness check `webhook`, which passes while it serves', async () => {
    const probe = manager.healthProbeAddress!;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(`http://${probe}/readyz/webhook`, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
    expect(answer).toEqual({ status: 200, body: 'ok' });
  });

  it("counts requests, latency and in-flight requests under controller-runtime's names", async () => {
    await post(address, '/validate-test-kop-dev-v1-widget', review('CREATE', widget), { ca: certs.ca.certPem });
    await post(address, '/validate-test-kop-dev-v1-widget', 'not json', { ca: certs.ca.certPem });
    const text = await manager.metrics.render();
    expect(text).toMatch(
      /controller_runtime_webhook_requests_total\{webhook="\/validate-test-kop-dev-v1-widget",code="200"\} [1-9]/,
    );
    expect(text).toMatch(
      /controller_runtime_webhook_requests_total\{webhook="\/validate-test-kop-dev-v1-widget",code="400"\} [1-9]/,
    );
    expect(text).toMatch(
      /controller_runtime_webhook_latency_seconds_count\{webhook="\/validate-test-kop-dev-v1-widget"\} [1-9]/,
    );
    expect(text).toMatch(
      /controller_runtime_webhook_requests_in_flight\{webhook="\/mutate-test-kop-dev-v1-widget"\} 0/,
    );
  });

  it('refuses registrations after start, and a path twice', () => {
    expect(() => manager.webhook(widgetType).withValidator(validator).complete()).toThrow(/before manager.start\(\)/);
    const other = new Manager({ logger: silentLogger });
    other.webhook(widgetType).withValidator(validator).complete();
    expect(() => other.webhook(widgetType).withValidator(validator).complete()).toThrow(
      /webhook path \/validate-test-kop-dev-v1-widget is registered already/,
    );
    // All or nothing: the defaulter of a refused builder was not registered either.
    expect(() =>
      other
        .webhook(widgetType)
        .withDefaulter({ default() {} })
        .withValidator(validator)
        .complete(),
    ).toThrow(/registered already/);
    other
      .webhook(widgetType)
      .withDefaulter({ default() {} })
      .complete();
    expect(() => other.webhook(widgetType).complete()).toThrow(/withDefaulter\(\.\.\.\) or withValidator/);
    expect(() =>
      other.webhook(widgetType).withValidator(validator).withValidatorPath('/a').withDefaulterPath('/b').complete(),
    ).toThrow(/withDefaulterPath needs withDefaulter/);
  });
});

describe('hostile and malformed requests', () => {
  const cases: {
    name: string;
    given: { path?: string; body: unknown; headers?: Record<string, string>; method?: string };
    want: { status: number; reason?: string };
  }[] = [
    { name: 'not JSON', given: { body: '{"apiVersion": ' }, want: { status: 400, reason: 'BadRequest' } },
    { name: 'JSON but not a review', given: { body: [1, 2, 3] }, want: { status: 400, reason: 'BadRequest' } },
    {
      name: 'wrong apiVersion',
      given: { body: { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'a' } } },
      want: { status: 400, reason: 'BadRequest' },
    },
    {
      name: 'no uid',
      given: { body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: {} } },
      want: { status: 400, reason: 'BadRequest' },
    },
    {
      name: 'another content type',
      given: { body: '{}', headers: { 'content-type': 'text/plain' } },
      want: { status: 400, reason: 'BadRequest' },
    },
    { name: 'GET', given: { body: '', method: 'GET' }, want: { status: 405, reason: 'MethodNotAllowed' } },
    {
      name: 'a path nobody serves',
      given: { path: '/mutate-nothing', body: review('CREATE', widget) },
      want: { status: 404, reason: 'NotFound' },
    },
    {
      name: 'a body over maxRequestBytes',
      given: { body: review('CREATE', { ...widget, data: 'x'.repeat(100 * 1024) }) },
      want: { status: 413, reason: 'RequestEntityTooLarge' },
    },
    {
      name: 'a body over maxRequestBytes sent chunked (no Content-Length)',
      given: {
        body: JSON.stringify(review('CREATE', { ...widget, data: 'x'.repeat(100 * 1024) })),
        headers: { 'transfer-encoding': 'chunked' },
      },
      want: { status: 413, reason: 'RequestEntityTooLarge' },
    },
  ];
  it.each(cases)('$name: HTTP $want.status', async ({ given, want }) => {
    const answer = await post(address, given.path ?? '/validate-test-kop-dev-v1-widget', given.body, {
      ca: certs.ca.certPem,
      headers: given.headers,
      method: given.method,
    });
    expect(answer.status).toBe(want.status);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', code: want.status, reason: want.reason });
  });

  it('deeply nested objects are denied, not a crash', async () => {
    let nested = '1';
    for (let i = 0; i < 20_000; i++) nested = `[${nested}]`;
    const body = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"deep","kind":{"group":"test.kop.dev","version":"v1","kind":"Widget"},"operation":"CREATE","object":{"spec":{"deep":${nested}}}}}`;
    const big = new Manager({
      logger: silentLogger,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      webhookServer: { host: '127.0.0.1', port: 0, certDir: certs.dir },
    });
    big
      .webhook(widgetType)
      .withDefaulter({
        default(o) {
          o.spec = { ...o.spec, size: 1 };
        },
      })
      .complete();
    const run = big.start();
    try {
      while (!big.webhookAddress) await new Promise((r) => setTimeout(r, 10));
      const answer = await post(big.webhookAddress, '/mutate-test-kop-dev-v1-widget', body, { ca: certs.ca.certPem });
      expect(answer.status).toBe(200);
      const response = (JSON.parse(answer.body) as { response: { uid: string; allowed: boolean; patch?: string } })
        .response;
      expect(response.uid).toBe('deep');
      // Either defaulted (the diff reached the bottom) or denied with a message; the server lives on.
      if (!response.allowed) expect(response).toMatchObject({ status: { code: 403 } });
      expect(
        (
          await post(big.webhookAddress, '/mutate-test-kop-dev-v1-widget', review('CREATE', widget), {
            ca: certs.ca.certPem,
          })
        ).status,
      ).toBe(200);
    } finally {
      await big.stop();
      await run;
    }
  });

  it('a client that goes away mid-body does not hurt the server', async () => {
    const { hostname, port } = new URL(`https://${address}`);
    await new Promise<void>((resolve) => {
      const req = https.request({
        host: hostname,
        port,
        path: '/validate-test-kop-dev-v1-widget',
        method: 'POST',
        ca: certs.ca.certPem,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': '5000' },
      });
      req.on('error', () => resolve());
      req.write('{"apiVersion":');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    const after = await post(address, '/validate-test-kop-dev-v1-widget', review('CREATE', widget), {
      ca: certs.ca.certPem,
    });
    expect(after.status).toBe(200);
  });

  it('plain HTTP gets no answer as a webhook (TLS only)', async () => {
    const { hostname, port } = new URL(`https://${address}`);
    const outcome = await new Promise<string>((resolve) => {
      const req = http.request(
        {
          host: hostname,
          port,
          path: '/validate-test-kop-dev-v1-widget',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (res) => resolve(`status ${res.statusCode}`),
      );
      req.on('error', (e) => resolve(`error ${e.message}`));
      req.end(JSON.stringify(review('CREATE', widget)));
    });
    expect(outcome).toMatch(/^error /);
  });
});

describe('TLS', () => {
  /** Handshakes with TLS 1.1 only (the client allows it with SECLEVEL=0), resolving to the protocol or the error. */
  function dialTls11(port: number, ca: string): Promise<string> {
    return new Promise((resolve) => {
      const socket = tls.connect({
        host: '127.0.0.1',
        port,
        ca,
        minVersion: 'TLSv1.1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT@SECLEVEL=0',
      });
      socket.on('secureConnect', () => {
        resolve(`connected ${socket.getProtocol()}`);
        socket.end();
      });
      socket.on('error', (error) => resolve(`refused: ${error.message}`));
    });
  }

  it('refuses TLS 1.1 (a server that allows it lets the same client in, so the client really offers it)', async () => {
    const pair = {
      cert: await readFile(path.join(certs.dir, 'tls.crt'), 'utf8'),
      key: await readFile(path.join(certs.dir, 'tls.key'), 'utf8'),
    };
    const lenient = tls.createServer({ ...pair, minVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' }, (s) => s.end());
    await new Promise<void>((resolve) => lenient.listen(0, '127.0.0.1', resolve));
    try {
      expect(await dialTls11((lenient.address() as { port: number }).port, certs.ca.certPem)).toBe('connected TLSv1.1');
    } finally {
      lenient.close();
    }
    expect(await dialTls11(Number(new URL(`https://${address}`).port), certs.ca.certPem)).toMatch(
      /^refused: .*(protocol version|unsupported protocol)/,
    );
  });

  it('speaks TLS 1.2 and 1.3', async () => {
    for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
      const protocol = await new Promise<string | null>((resolve, reject) => {
        const socket = tls.connect(
          {
            host: '127.0.0.1',
            port: Number(new URL(`https://${address}`).port),
            ca: certs.ca.certPem,
            minVersion: version,
            maxVersion: version,
          },
          () => {
            resolve(socket.getProtocol());
            socket.end();
          },
        );
        socket.on('error', reject);
      });
      expect(protocol).toBe(version);
    }
  });
});

describe('certificate rotation', () => {
  it('a new pair on disk is served without a restart; a client trusting only the new CA connects', async () => {
    const oldCa = certs.ca;
    const newCa = await certs.rotate();
    // fs.watch (or the 200 ms poll) picks it up.
    const deadline = Date.now() + 5_000;
    let answer: string | undefined;
    while (Date.now() < deadline) {
      answer = await post(address, '/validate-test-kop-dev-v1-widget', review('CREATE', widget), {
        ca: newCa.certPem,
      }).then(
        (a) => `status ${a.status}`,
        (e: Error) => `error ${e.message}`,
      );
      if (answer === 'status 200') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answer).toBe('status 200');
    await expect(
      post(address, '/validate-test-kop-dev-v1-widget', review('CREATE', widget), { ca: oldCa.certPem }),
    ).rejects.toThrow(/certificate/);
    expect(logger.lines).toContain('info serving certificate reloaded');
  });

  it('a pair that does not load keeps the old one and is logged', async () => {
    const before = logger.lines.length;
    // A key of another certificate: the new pair does not match.
    const stranger = await (
      await CertificateAuthority.create('stranger')
    ).issue({ commonName: 'x', hosts: ['127.0.0.1'], usage: 'server' });
    await writeFile(path.join(certs.dir, 'tls.key'), stranger.keyPem);
    const deadline = Date.now() + 5_000;
    while (
      Date.now() < deadline &&
      !logger.lines.slice(before).some((l) => l.startsWith('error new serving certificate does not load'))
    )
      await new Promise((r) => setTimeout(r, 50));
    expect(
      logger.lines.slice(before).filter((l) => l.startsWith('error new serving certificate does not load')),
    ).toHaveLength(1);
    expect(
      (await post(address, '/validate-test-kop-dev-v1-widget', review('CREATE', widget), { ca: certs.ca.certPem }))
        .status,
    ).toBe(200);
    // Fixed on disk (a new leaf of the same CA): loaded again.
    const reloads = (): number => logger.lines.filter((l) => l === 'info serving certificate reloaded').length;
    const reloadsBefore = reloads();
    await writePair(certs.dir, certs.ca);
    const until = Date.now() + 5_000;
    while (Date.now() < until && reloads() === reloadsBefore) await new Promise((r) => setTimeout(r, 50));
    expect(reloads()).toBe(reloadsBefore + 1);
    expect(
      (await post(address, '/validate-test-kop-dev-v1-widget', review('CREATE', widget), { ca: certs.ca.certPem }))
        .status,
    ).toBe(200);
  });
});

describe('starting and stopping', () => {
  it('a manager without webhooks starts no webhook server and no readiness check', async () => {
    const plain = new Manager({
      logger: silentLogger,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      webhookServer: { certDir: '/nonexistent' },
    });
    const run = plain.start();
    await new Promise((r) => setTimeout(r, 50));
    expect(plain.webhookAddress).toBeUndefined();
    await plain.stop();
    await run;
  });

  it('missing certificate files fail start with what to do, and nothing stays listening', async () => {
    const broken = new Manager({
      logger: silentLogger,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '0',
      webhookServer: { port: 0 },
    });
    broken.webhook(widgetType).withValidator(validator).complete();
    expect(DEFAULT_CERT_DIR).toBe('/tmp/k8s-webhook-server/serving-certs');
    await expect(broken.start()).rejects.toThrow(
      /cannot read the serving certificate and key \(\/tmp\/k8s-webhook-server\/serving-certs\/tls\.crt.*--webhook-cert-path.*ENABLE_WEBHOOKS=false.*`kop dev`/,
    );
    const metrics = broken.metricsAddress!;
    await expect(
      new Promise((resolve, reject) => http.get(`http://${metrics}/metrics`, resolve).on('error', reject)),
    ).rejects.toThrow(/ECONNREFUSED/);
  });

  it('stops gracefully: a request in flight is answered, then nothing new is accepted', async () => {
    const graceful = new Manager({
      logger: silentLogger,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      gracefulShutdownTimeoutMs: 5_000,
      webhookServer: { host: '127.0.0.1', port: 0, certDir: certs.dir },
    });
    graceful.webhook(widgetType).withValidator(validator).complete();
    const run = graceful.start();
    while (!graceful.webhookAddress) await new Promise((r) => setTimeout(r, 10));
    const at = graceful.webhookAddress;
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    const agent = new https.Agent({ keepAlive: true, ca: certs.ca.certPem });
    const inFlight = post(
      at,
      '/validate-test-kop-dev-v1-widget',
      review('CREATE', { ...widget, spec: { size: 1, slow: true } }),
      { ca: certs.ca.certPem, agent },
    );
    await started;
    const stopped = graceful.stop();
    await new Promise((r) => setTimeout(r, 100));
    await expect(
      post(at, '/validate-test-kop-dev-v1-widget', review('CREATE', widget), { ca: certs.ca.certPem }),
    ).rejects.toThrow(/ECONNREFUSED/);
    releaseSlow!();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe('close');
    await stopped;
    await run;
    agent.destroy();
  });

  it('stops at once with connections that are idle or never sent a request', async () => {
    const quick = new Manager({
      logger: silentLogger,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      gracefulShutdownTimeoutMs: 20_000,
      webhookServer: { host: '127.0.0.1', port: 0, certDir: certs.dir },
    });
    quick.webhook(widgetType).withValidator(validator).complete();
    const run = quick.start();
    while (!quick.webhookAddress) await new Promise((r) => setTimeout(r, 10));
    const [host, port] = [quick.webhookAddress.replace(/:\d+$/, ''), Number(/:(\d+)$/.exec(quick.webhookAddress)![1])];
    // A connection that completed its handshake but never sent a request (clients dial ahead)...
    const silent = tls.connect({ host, port, ca: certs.ca.certPem, servername: 'localhost' });
    await new Promise((resolve) => silent.once('secureConnect', resolve));
    // ...and a keep-alive connection back to idle after one request.
    const agent = new https.Agent({ keepAlive: true, ca: certs.ca.certPem });
    expect(
      (
        await post(quick.webhookAddress, '/validate-test-kop-dev-v1-widget', review('CREATE', widget), {
          ca: certs.ca.certPem,
          agent,
        })
      ).status,
    ).toBe(200);
    const began = Date.now();
    await quick.stop();
    await run;
    expect(Date.now() - began).toBeLessThan(2_000);
    silent.destroy();
    agent.destroy();
  });
});
