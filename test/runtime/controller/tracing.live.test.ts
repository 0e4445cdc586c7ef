// Traces of a manager against a real kube-apiserver, recorded by the OpenTelemetry SDK's in-memory
// exporter: a reconcile that reads from the cache, updates the status and conflicts once; a
// webhook request; and the trace ids on the log lines written inside a span.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager, createLogger } from '../../../src/runtime/index.js';
import { createClient, type RestClient } from '../../../src/runtime/client/index.js';
import { defaultingPath } from '../../../src/runtime/webhook/index.js';
import { makeCertDir, post, type CertDir } from '../webhook/helpers.js';
import {
  freshNamespace,
  restFor,
  leaseTestControlPlane,
  type LeasedControlPlane,
  waitFor,
  widgetResource,
} from './helpers.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();
const logLines: Array<Record<string, unknown>> = [];

let plane: LeasedControlPlane;
let admin: RestClient;
let certs: CertDir;
let manager: Manager;
let running: Promise<void>;
let ns: string;
const attempts = new Map<string, number>();

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
  plane = await leaseTestControlPlane();
  admin = restFor(plane);
  ns = await freshNamespace(admin, 'tracing');
  certs = await makeCertDir();
  manager = new Manager({
    rest: restFor(plane),
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    leaderElection: false,
    logger: createLogger({
      format: 'json',
      level: 'info',
      stream: { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
    }),
    webhookServer: { host: '127.0.0.1', port: 0, certDir: certs.dir },
  });
  manager
    .controller('widget')
    .for(widgetResource)
    .complete(async (request, { client, logger }) => {
      const widget = await client.get(widgetResource, request);
      const attempt = (attempts.get(request.name) ?? 0) + 1;
      attempts.set(request.name, attempt);
      logger.info('reconciling widget', { attempt });
      if (attempt === 1) {
        // Someone else writes the object between this reconcile's read and its write: the 409.
        await createClient(admin).update(widgetResource, {
          ...widget,
          metadata: { ...widget.metadata, labels: { touched: 'yes' } },
        });
      }
      await client.status().update(widgetResource, { ...widget, status: { observed: attempt } });
    });
  manager
    .webhook(widgetResource)
    .withDefaulter({ default: () => undefined })
    .complete();
  running = manager.start();
  await waitFor(() => manager.webhookAddress, 20_000, 'the webhook server');
  // An object cached before the controller connects reaches it in the start's replay, outside any
  // watch event's span: the first test's object must come after, through a watch event.
  await waitFor(() => logLines.some((l) => l.msg === 'controller started'), 20_000, 'the controller started');
}, 120_000);

afterAll(async () => {
  await manager?.stop();
  await running?.catch(() => undefined);
  admin?.close();
  await plane?.release();
  await certs?.remove();
  trace.disable();
  context.disable();
});

function children(parent: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  return spans
    .filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

describe('traces', () => {
  it('a reconcile that reads, updates the status and conflicts once yields the expected span tree', async () => {
    await createClient(admin).create(widgetResource, {
      metadata: { name: 'traced', namespace: ns },
      spec: { size: 1 },
    });
    const reconciles = await waitFor(
      () => {
        const found = exporter
          .getFinishedSpans()
          .filter((s) => s.name === 'reconcile widget' && s.attributes['kop.k8s.object.name'] === 'traced');
        return found.some((s) => s.attributes['kop.reconcile.result'] === 'success') ? found : undefined;
      },
      20_000,
      'a successful traced reconcile',
    );
    const spans = exporter.getFinishedSpans();
    const [first, ...rest] = reconciles;
    const second = rest.find((s) => s.attributes['kop.reconcile.result'] === 'success')!;

    // The first: an error, a conflict, with the object, the queue wait, and a link to the watch event.
    expect(first!.attributes).toMatchObject({
      'kop.controller.name': 'widget',
      'k8s.namespace.name': ns,
      'kop.k8s.object.name': 'traced',
      'kop.reconcile.result': 'error',
      'error.type': 'Conflict',
    });
    expect(first!.attributes['kop.queue.wait_ms']).toBeTypeOf('number');
    expect(first!.status.code).toBe(2); // ERROR
    expect(first!.links.length).toBeGreaterThan(0);
    const origin = spans.find((s) => s.spanContext().spanId === first!.links[0]!.context.spanId);
    expect(origin?.name).toMatch(/^watch event ADDED$|^informer list /);
    if (origin?.name === 'watch event ADDED') expect(origin.attributes['kop.k8s.object.name']).toBe('traced');

    // Its children: the cache read, then the PUT of the status that got the 409.
    const tree = (span: ReadableSpan): string[] =>
      children(span, spans)
        .filter((s) => s.name !== 'PUT widgets') // the admin's write runs inside the first reconcile too
        .map(
          (s) =>
            `${s.name}${s.attributes['http.response.status_code'] ? ` ${String(s.attributes['http.response.status_code'])}` : ''}`,
        );
    expect(tree(first!)).toEqual(['cache get Widget', 'PUT widgets/status 409']);
    const conflict = children(first!, spans).find((s) => s.name === 'PUT widgets/status')!;
    expect(conflict.attributes).toMatchObject({
      'http.request.method': 'PUT',
      'kop.k8s.verb': 'update',
      'kop.k8s.resource': 'widgets/status',
      'k8s.namespace.name': ns,
      'error.type': '409',
    });
    expect(children(first!, spans).find((s) => s.name === 'cache get Widget')!.attributes['kop.cache.hit']).toBe(true);

    // The retry succeeds, in a trace of its own, with the same two steps.
    expect(second.spanContext().traceId).not.toBe(first!.spanContext().traceId);
    expect(tree(second)).toEqual(['cache get Widget', 'PUT widgets/status 200']);
    expect(second.attributes['kop.reconcile.retries']).toBeGreaterThanOrEqual(1);

    // The reconciler's log lines carry the trace and span of their reconcile.
    const lines = logLines.filter((l) => l.msg === 'reconciling widget' && l.name === 'traced');
    expect(lines.map((l) => [l.trace_id, l.span_id])).toContainEqual([
      first!.spanContext().traceId,
      first!.spanContext().spanId,
    ]);
    expect(lines.map((l) => [l.trace_id, l.span_id])).toContainEqual([
      second.spanContext().traceId,
      second.spanContext().spanId,
    ]);
    // The runtime's own conflict line too.
    const retryLine = logLines.find((l) => typeof l.msg === 'string' && l.msg.includes('409 Conflict'));
    expect(retryLine?.trace_id).toBe(first!.spanContext().traceId);
    // Lines written outside any span carry none.
    expect(logLines.find((l) => l.msg === 'controller started')?.trace_id).toBeUndefined();
  }, 60_000);

  it('a webhook request yields a server span with the review', async () => {
    const path = defaultingPath(widgetResource);
    const answer = await post(
      manager.webhookAddress!,
      `${path}?timeout=10s`,
      {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'uid-1',
          kind: { group: 'test.kop.dev', version: 'v1', kind: 'Widget' },
          resource: { group: 'test.kop.dev', version: 'v1', resource: 'widgets' },
          operation: 'CREATE',
          namespace: ns,
          name: 'hooked',
          object: { apiVersion: 'test.kop.dev/v1', kind: 'Widget', metadata: { name: 'hooked', namespace: ns } },
          userInfo: { username: 'test' },
        },
      },
      { ca: certs.ca.certPem },
    );
    expect(answer.status).toBe(200);
    const span = await waitFor(() => exporter.getFinishedSpans().find((s) => s.name === `POST ${path}`));
    expect(span.kind).toBe(1); // SERVER
    expect(span.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': path,
      'http.response.status_code': 200,
      'kop.webhook.review': 'AdmissionReview',
      'kop.webhook.uid': 'uid-1',
      'kop.webhook.operation': 'CREATE',
      'kop.k8s.kind': 'Widget',
      'k8s.namespace.name': ns,
      'kop.k8s.object.name': 'hooked',
    });
  });
});
