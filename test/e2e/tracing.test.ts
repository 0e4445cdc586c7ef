import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeOtlpTraces, type DecodedSpan } from '../../src/dev/otlp-json.js';
import { findControlPlaneBinary, startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { initLinkedProject, KOP_BIN } from '../helpers/cli-project.js';
import { startOtelCollector } from '../helpers/otel-collector.js';

/**
 * The scaffold's tracing (src/tracing.ts), end to end: a project made by `kop init` + `kop create
 * api`, built, its manager run against a real control plane with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at an OTLP/HTTP receiver this test serves. With http/json, a reconcile of the sample
 * arrives as one trace whose reconcile span is the parent of its API calls; with the default
 * http/protobuf and a long batch delay, the spans arrive only as the manager shuts down on
 * SIGTERM; without an endpoint, no module of the SDK is even resolved (a module-resolve hook
 * records every module the manager loads); and with the default protobuf to a real OpenTelemetry
 * Collector (`kop setup-envtest --otelcol`), the trace lands in the file the collector writes.
 * Needs `npm run build` first.
 */
const TIMEOUT = 240_000;

interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

/** An OTLP/HTTP receiver on 127.0.0.1: records each request, answers as a collector does. */
async function startReceiver(): Promise<{ server: Server; url: string; requests: Received[] }> {
  const requests: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const contentType = request.headers['content-type'] ?? '';
      requests.push({ path: request.url ?? '', contentType, body: Buffer.concat(chunks) });
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      // An empty ExportTraceServiceResponse: `{}` in JSON, no bytes in protobuf.
      if (contentType.startsWith('application/json'))
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

async function waitUntil<T>(
  check: () => T | Promise<T>,
  timeoutMs: number,
  what: () => string,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The reconcile span of RedisCluster `name` and its children, once a reconcile with API calls under it is among `all`. */
function reconcileOf(
  all: DecodedSpan[],
  name = 'rediscluster-sample',
): { root: DecodedSpan; children: DecodedSpan[] } | undefined {
  for (const root of all) {
    if (root.name !== 'reconcile rediscluster' || root.attributes['kop.k8s.object.name'] !== name) continue;
    const children = all.filter((span) => span.parentSpanId === root.spanId);
    if (children.some((span) => span.kind === 3)) return { root, children };
  }
  return undefined;
}

describe('the scaffold exports traces over OTLP when an endpoint is set', () => {
  let parent: string;
  let project: string;
  let plane: ControlPlane | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let manager: ResultPromise | undefined;
  let kubectlPath: string;
  const run = (file: string, args: string[]) =>
    execa(file, args, { cwd: project, reject: false, stdin: 'ignore', env: { NO_COLOR: '1', CI: 'true' } });

  /** The process's environment without any OTEL_ variable of the machine running the test. */
  const baseEnv = () =>
    Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_'))) as NodeJS.ProcessEnv;

  /** Starts the built manager with `env`, recording each module it resolves in `loadedLog`. */
  const startManager = (env: NodeJS.ProcessEnv, loadedLog: string): { text: string } => {
    const output = { text: '' };
    manager = execa(
      'node',
      [
        '--import',
        path.join(parent, 'record-modules.mjs'),
        'dist/src/main.js',
        '--kubeconfig',
        plane!.kubeconfigPath,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '127.0.0.1:0',
      ],
      {
        cwd: project,
        reject: false,
        stdin: 'ignore',
        extendEnv: false,
        env: { ...baseEnv(), ...env, NO_COLOR: '1', KOP_LOG_LEVEL: 'debug', KOP_TEST_MODULE_LOG: loadedLog },
      },
    );
    manager.stdout!.on('data', (chunk: Buffer) => (output.text += chunk.toString()));
    manager.stderr!.on('data', (chunk: Buffer) => (output.text += chunk.toString()));
    return output;
  };

  const stopManager = async () => {
    manager!.kill('SIGTERM');
    const result = await manager!;
    manager = undefined;
    return result;
  };

  /** Waits until the manager logged a finished reconcile of the sample (its debug line `reconciled`). */
  const waitForReconcile = (output: { text: string }) =>
    waitUntil(
      () =>
        /"msg":"reconciled".*"name":"rediscluster-sample"|"name":"rediscluster-sample".*"msg":"reconciled"/.test(
          output.text,
        ),
      60_000,
      () => `a reconcile of the sample; manager output:\n${output.text}`,
    );

  /** Applies config/samples (again: each test may run alone); the manager reconciles the sample at start or on the change. */
  const applySample = async () => {
    const applied = await execa(kubectlPath, ['--kubeconfig', plane!.kubeconfigPath, 'apply', '-k', 'config/samples'], {
      cwd: project,
      reject: false,
    });
    expect(applied.exitCode, applied.stderr).toBe(0);
  };

  const loadedSdkModules = async (log: string) =>
    (await readFile(log, 'utf8').catch(() => ''))
      .split('\n')
      .filter((url) => /@opentelemetry\/(sdk-trace|exporter-trace|resources|otlp-)/.test(url));

  beforeAll(async () => {
    kubectlPath = findControlPlaneBinary('kubectl');
    ({ parent, project } = await initLinkedProject('redis-operator', 'kop-e2e-tracing-'));
    // A module-resolve hook (run with --import) that appends each module URL the manager resolves to a file.
    await writeFile(
      path.join(parent, 'record-modules-hooks.mjs'),
      [
        "import { appendFileSync } from 'node:fs';",
        'export async function resolve(specifier, context, next) {',
        '  const result = await next(specifier, context);',
        "  appendFileSync(process.env.KOP_TEST_MODULE_LOG, result.url + '\\n');",
        '  return result;',
        '}',
        '',
      ].join('\n'),
    );
    await writeFile(
      path.join(parent, 'record-modules.mjs'),
      "import { register } from 'node:module';\nregister('./record-modules-hooks.mjs', import.meta.url);\n",
    );
    const api = await run('node', [
      KOP_BIN,
      'create',
      'api',
      '--group',
      'cache',
      '--version',
      'v1alpha1',
      '--kind',
      'RedisCluster',
      '--yes',
    ]);
    expect(api.exitCode, api.stderr).toBe(0);
    const build = await run('npm', ['run', 'build']);
    expect(build.exitCode, build.stdout + build.stderr).toBe(0);
    plane = await startControlPlane({ crds: [path.join(project, 'config/crd/bases')] });
    receiver = await startReceiver();
  }, TIMEOUT);

  afterEach(async () => {
    if (manager) {
      manager.kill('SIGKILL');
      await manager;
      manager = undefined;
    }
    receiver.requests.length = 0;
  });

  afterAll(async () => {
    manager?.kill('SIGKILL');
    await new Promise((resolve) => receiver?.server.close(resolve));
    await plane?.stop();
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'http/json: a reconcile of the sample is one trace, the reconcile span the parent of its API calls',
    async () => {
      const log = path.join(parent, 'modules-json.log');
      const output = startManager(
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
        log,
      );
      await applySample();

      const spans = (): DecodedSpan[] =>
        receiver.requests
          .filter((r) => r.path === '/v1/traces' && r.contentType.startsWith('application/json'))
          .flatMap((r) => decodeOtlpTraces(JSON.parse(r.body.toString('utf8'))));
      // A reconcile of the sample with API calls under it (adding the finalizer, writing the status).
      const found = await waitUntil(
        () => reconcileOf(spans()),
        60_000,
        () =>
          `a reconcile span with API-call children; ${spans().length} spans so far; manager output:\n${output.text}`,
      );
      const { root, children } = found;
      expect(root.serviceName).toBe('redis-operator');
      expect(root.attributes).toMatchObject({
        'kop.controller.name': 'rediscluster',
        'k8s.namespace.name': 'default',
        'kop.reconcile.result': expect.any(String),
      });
      const apiCalls = children.filter((span) => span.kind === 3);
      for (const call of apiCalls) {
        expect(call.traceId).toBe(root.traceId);
        expect(call.startMs).toBeGreaterThanOrEqual(root.startMs);
        expect(call.endMs).toBeLessThanOrEqual(root.endMs);
        expect(call.attributes['http.response.status_code']).toEqual(expect.any(Number));
        expect(call.name).toMatch(/^(GET|PUT|PATCH|POST|DELETE) redisclusters/);
      }
      expect(output.text).toMatch(/"msg":"exporting traces over OTLP".*"protocol":"http\/json"/);

      const stopped = await stopManager();
      expect(stopped.exitCode, output.text).toBe(0);
      expect(await loadedSdkModules(log)).toEqual(
        expect.arrayContaining([
          expect.stringContaining('@opentelemetry/sdk-trace-node'),
          expect.stringContaining('@opentelemetry/exporter-trace-otlp-http'),
        ]),
      );
    },
    TIMEOUT,
  );

  it(
    'to a real OpenTelemetry Collector (the default protobuf): the reconcile and its API calls land as one trace in its file',
    async () => {
      const collector = await startOtelCollector(parent);
      try {
        const output = startManager(
          { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' },
          path.join(parent, 'modules-collector.log'),
        );
        // An object of its own, new to the manager: its reconcile adds the finalizer and writes the status.
        const sample = await readFile(path.join(project, 'config/samples/cache_v1alpha1_rediscluster.yaml'), 'utf8');
        await writeFile(
          path.join(parent, 'traced.yaml'),
          sample.replace(/name: rediscluster-sample/, 'name: rediscluster-traced'),
        );
        const applied = await execa(
          kubectlPath,
          ['--kubeconfig', plane!.kubeconfigPath, 'apply', '-f', path.join(parent, 'traced.yaml')],
          { reject: false },
        );
        expect(applied.exitCode, applied.stderr).toBe(0);
        const spans = () => collector.exportedRequests().flatMap((request) => decodeOtlpTraces(request));
        const { root, children } = await waitUntil(
          () => reconcileOf(spans(), 'rediscluster-traced'),
          60_000,
          () =>
            `the sample's reconcile in the collector's file; ${spans().length} spans so far; manager output:\n${output.text}`,
        );
        expect(root.serviceName).toBe('redis-operator');
        expect(root.parentSpanId).toBeUndefined();
        for (const call of children.filter((span) => span.kind === 3)) {
          expect(call.traceId).toBe(root.traceId);
          expect(call.name).toMatch(/^(GET|PUT|PATCH|POST|DELETE) redisclusters/);
        }
        const stopped = await stopManager();
        expect(stopped.exitCode, output.text).toBe(0);
      } finally {
        await collector.stop();
      }
    },
    TIMEOUT,
  );

  it(
    'http/protobuf (the default): the batched spans are sent when SIGTERM stops the manager',
    async () => {
      const output = startManager(
        // Nothing is sent on a timer within the test: what arrives was flushed by the shutdown.
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: '600000' },
        path.join(parent, 'modules-proto.log'),
      );
      await applySample();
      await waitForReconcile(output);
      expect(receiver.requests).toEqual([]);
      const stopped = await stopManager();
      expect(stopped.exitCode, output.text).toBe(0);
      const exports = receiver.requests.filter((r) => r.path === '/v1/traces');
      expect(exports.length, output.text).toBeGreaterThan(0);
      expect(exports.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);
      // Protobuf strings are their UTF-8 bytes: the span name and the service name are in the body.
      const bodies = Buffer.concat(exports.map((r) => r.body));
      expect(bodies.includes('reconcile rediscluster')).toBe(true);
      expect(bodies.includes('redis-operator')).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'without an endpoint, no module of the SDK is loaded and nothing is sent',
    async () => {
      const log = path.join(parent, 'modules-off.log');
      const output = startManager({}, log);
      await applySample();
      await waitForReconcile(output);
      const stopped = await stopManager();
      expect(stopped.exitCode, output.text).toBe(0);
      const loaded = (await readFile(log, 'utf8')).split('\n');
      // The hook did record the manager's modules (kop/runtime among them), only none of the SDK's.
      expect(loaded.some((url) => url.includes('/dist/runtime/'))).toBe(true);
      expect(await loadedSdkModules(log)).toEqual([]);
      expect(receiver.requests).toEqual([]);
      expect(output.text).not.toContain('exporting traces');
    },
    TIMEOUT,
  );

  it(
    'an OTLP protocol it cannot export with stops the manager with an error naming the variable',
    async () => {
      const output = startManager(
        { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
        path.join(parent, 'modules-grpc.log'),
      );
      const result = await manager!;
      manager = undefined;
      expect(result.exitCode).toBe(1);
      expect(output.text).toMatch(
        /"msg":"cannot start tracing".*OTEL_EXPORTER_OTLP_PROTOCOL is \\"grpc\\".*use http\/protobuf or http\/json/,
      );
      expect(receiver.requests).toEqual([]);
    },
    TIMEOUT,
  );
});
