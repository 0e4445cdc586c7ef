// kop/runtime traces through the OpenTelemetry API only. Without an SDK (what a process that
// never set one up has) nothing is observed and log lines carry no trace ids; with one, a
// client call is a span that sends its traceparent and a log line inside a span names it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { createLogger } from '../../../src/runtime/index.js';
import { startRestCall } from '../../../src/runtime/client/rest/instrumentation.js';
import { inSpan, tracer } from '../../../src/runtime/util/tracing.js';

let server: http.Server;
let base: string;
const traceparents: Array<string | undefined> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    traceparents.push(req.headers.traceparent as string | undefined);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function jsonLogger(lines: Array<Record<string, unknown>>) {
  return createLogger({
    format: 'json',
    stream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
}

describe('tracing', () => {
  it('without an SDK: no call is observed, no header is sent, no log line names a trace', async () => {
    const client = new RestClient(loadClientConfig({ server: base, env: {} }));
    expect(startRestCall(client, 'GET', '/api/v1/namespaces/a/pods/b', false)).toBeUndefined();
    const lines: Array<Record<string, unknown>> = [];
    const logger = jsonLogger(lines);
    let given: unknown = 'not called';
    await inSpan('reconcile x', {}, async (span) => {
      given = span;
      logger.info('inside');
      await client.get('/api/v1/namespaces/a/pods/b');
    });
    client.close();
    expect(given).toBeUndefined();
    expect(traceparents.at(-1)).toBeUndefined();
    expect(lines[0]).not.toHaveProperty('trace_id');
  });

  it('without an SDK no span is started at all; a provider registered later, or again after one was removed, is used', () => {
    // The hot paths (every request, watch event, cache read and reconcile) ask this first and
    // skip their span work, rather than making the API's non-recording spans.
    expect(tracer()).toBeUndefined();
    for (let round = 0; round < 2; round++) {
      const exporter = new InMemorySpanExporter();
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
      try {
        expect(tracer()).toBeDefined();
        inSpan(`span ${round}`, {}, (span) => expect(span?.isRecording()).toBe(true));
        expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([`span ${round}`]);
      } finally {
        trace.disable();
      }
      expect(tracer()).toBeUndefined();
    }
  });

  it('with an SDK: the call is a child span that sends its traceparent, and log lines name their span', async () => {
    const exporter = new InMemorySpanExporter();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    try {
      const client = new RestClient(loadClientConfig({ server: base, env: {} }));
      const lines: Array<Record<string, unknown>> = [];
      const logger = jsonLogger(lines);
      await inSpan('reconcile x', {}, async () => {
        logger.info('inside');
        await client.get('/apis/apps/v1/namespaces/a/deployments/b');
      });
      logger.info('outside');
      client.close();
      const spans = exporter.getFinishedSpans();
      const parent = spans.find((s) => s.name === 'reconcile x')!;
      const call = spans.find((s) => s.name === 'GET deployments')!;
      expect(call.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(call.attributes).toMatchObject({
        'http.request.method': 'GET',
        'http.response.status_code': 200,
        'server.address': '127.0.0.1',
        'kop.k8s.verb': 'get',
        'kop.k8s.group': 'apps',
        'kop.k8s.resource': 'deployments',
        'k8s.namespace.name': 'a',
        'kop.k8s.object.name': 'b',
      });
      expect(traceparents.at(-1)).toBe(`00-${call.spanContext().traceId}-${call.spanContext().spanId}-01`);
      expect(lines[0]).toMatchObject({ trace_id: parent.spanContext().traceId, span_id: parent.spanContext().spanId });
      expect(lines[1]).not.toHaveProperty('trace_id');
    } finally {
      trace.disable();
      propagation.disable();
      context.disable();
    }
  });
});
