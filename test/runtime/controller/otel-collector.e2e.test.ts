// A manager's traces through a real OTLP pipeline: the OpenTelemetry SDK in this process exports
// with a BatchSpanProcessor and the OTLP/HTTP (protobuf) exporter to an OpenTelemetry Collector
// (built from Go modules by `kop setup-envtest --otelcol`), whose file exporter writes what it
// received; the test reads the file back and finds one reconcile's connected trace.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager, silentLogger } from '../../../src/runtime/index.js';
import { createClient, type RestClient } from '../../../src/runtime/client/index.js';
import type { ControlPlane } from '../../../src/testing/index.js';
import { startOtelCollector, type RunningCollector } from '../../helpers/otel-collector.js';
import { freshNamespace, restFor, startTestControlPlane, waitFor, widgetResource } from './helpers.js';

/** One span as the collector's file exporter writes it (OTLP/JSON: ids in hex, attributes as key/value lists). */
interface FileSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
  links?: Array<{ traceId: string; spanId: string }>;
  /** The instrumentation scope (the tracer's name). */
  scope?: string;
}

/** Every span the collector wrote, with its scope's name. */
function readSpans(collector: RunningCollector): FileSpan[] {
  const spans: FileSpan[] = [];
  for (const request of collector.exportedRequests() as Array<{
    resourceSpans?: Array<{ scopeSpans?: Array<{ scope?: { name?: string }; spans?: FileSpan[] }> }>;
  }>)
    for (const resourceSpans of request.resourceSpans ?? [])
      for (const scopeSpans of resourceSpans.scopeSpans ?? [])
        for (const span of scopeSpans.spans ?? []) spans.push({ ...span, scope: scopeSpans.scope?.name });
  return spans;
}

const attribute = (span: FileSpan, key: string): unknown => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
};

let dir: string;
let collector: RunningCollector | undefined;
let provider: BasicTracerProvider | undefined;
const contextManager = new AsyncLocalStorageContextManager();
let plane: ControlPlane | undefined;
let admin: RestClient | undefined;
let manager: Manager | undefined;
let running: Promise<void> | undefined;
let ns: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kop-otelcol-'));
  collector = await startOtelCollector(dir);

  context.setGlobalContextManager(contextManager.enable());
  provider = new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${collector.endpoint}/v1/traces` }), {
        scheduledDelayMillis: 200,
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);

  plane = await startTestControlPlane();
  admin = restFor(plane);
  ns = await freshNamespace(admin, 'otelcol');
  manager = new Manager({
    rest: restFor(plane),
    namespace: ns,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    leaderElection: false,
    logger: silentLogger,
  });
  manager
    .controller('widget')
    .for(widgetResource)
    .complete(async (request, { client }) => {
      const widget = await client.get(widgetResource, request);
      await client.status().update(widgetResource, { ...widget, status: { observed: widget.metadata?.generation } });
    });
  running = manager.start();
}, 180_000);

afterAll(async () => {
  await manager?.stop();
  await running?.catch(() => undefined);
  admin?.close();
  await plane?.stop();
  await provider?.shutdown();
  trace.disable();
  context.disable();
  await collector?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('traces exported to an OpenTelemetry Collector', () => {
  it('the file holds a connected trace: the reconcile, its API calls under it, linked to the watch event', async () => {
    const widgets = createClient(admin!);
    const observed = (name: string) => async () => {
      const widget = await widgets.get(widgetResource, { namespace: ns, name });
      return widget.status?.observed !== undefined || undefined;
    };
    // A first object reconciled shows the informer has synced, so the next one arrives as a watch event.
    await widgets.create(widgetResource, { metadata: { name: 'first', namespace: ns }, spec: { size: 1 } });
    await waitFor(observed('first'), 30_000, 'the first widget reconciled');
    await widgets.create(widgetResource, { metadata: { name: 'traced', namespace: ns }, spec: { size: 2 } });
    await waitFor(observed('traced'), 30_000, 'the traced widget reconciled');
    await provider!.forceFlush();

    const found = await waitFor(
      () => {
        const spans = readSpans(collector!);
        const reconcile = spans.find(
          (s) => s.name === 'reconcile widget' && attribute(s, 'kop.k8s.object.name') === 'traced',
        );
        if (!reconcile) return undefined;
        const origin = spans.find((s) => s.spanId === reconcile.links?.[0]?.spanId);
        const children = spans.filter((s) => s.parentSpanId === reconcile.spanId);
        return origin && children.some((s) => s.name === 'PUT widgets/status')
          ? { spans, reconcile, origin }
          : undefined;
      },
      30_000,
      'the reconcile of "traced", its child spans and the watch event in the file the collector writes',
    );
    const { spans, reconcile, origin } = found;

    expect(reconcile.scope).toBe('kop/runtime');
    expect(reconcile.parentSpanId ?? '').toBe('');
    expect(attribute(reconcile, 'kop.controller.name')).toBe('widget');
    expect(attribute(reconcile, 'k8s.namespace.name')).toBe(ns);
    expect(attribute(reconcile, 'kop.reconcile.result')).toBe('success');

    // Its children, in the same trace: the cache read and the status write with the apiserver's answer.
    const children = spans.filter((s) => s.parentSpanId === reconcile.spanId);
    expect(children.map((s) => s.name).sort()).toEqual(['PUT widgets/status', 'cache get Widget']);
    for (const child of children) expect(child.traceId).toBe(reconcile.traceId);
    const put = children.find((s) => s.name === 'PUT widgets/status')!;
    expect(attribute(put, 'http.request.method')).toBe('PUT');
    expect(attribute(put, 'kop.k8s.object.name')).toBe('traced');
    expect(Number(attribute(put, 'http.response.status_code'))).toBe(200);

    // The link: the watch event that queued the key, a span of its own trace, exported too.
    expect(reconcile.links?.[0]?.traceId).toBe(origin.traceId);
    expect(origin.name).toBe('watch event ADDED');
    expect(attribute(origin, 'kop.k8s.object.name')).toBe('traced');
    expect(attribute(origin, 'k8s.namespace.name')).toBe(ns);
  });
});
