import { describe, expect, it } from 'vitest';
import { decodeOtlpTraces, OtlpDecodeError, type DecodedSpan } from '../../src/dev/otlp-json.js';
import { ReconcileTraces } from '../../src/dev/reconcile-traces.js';
import { TraceReceiver } from '../../src/dev/trace-receiver.js';
import { formatMs, renderWaterfall } from '../../src/dev/trace-waterfall.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const T0 = 1_764_000_000_000; // ms since the epoch

/** OTLP/JSON's attribute list from a record, as the OpenTelemetry JS exporter writes it. */
function otlpAttributes(record: Record<string, string | number | boolean>) {
  return Object.entries(record).map(([key, value]) => ({
    key,
    value:
      typeof value === 'string'
        ? { stringValue: value }
        : typeof value === 'boolean'
          ? { boolValue: value }
          : Number.isInteger(value)
            ? { intValue: value }
            : { doubleValue: value },
  }));
}

interface SpanSpec {
  id: string;
  parent?: string;
  name: string;
  start: number;
  end: number;
  kind?: number;
  attributes?: Record<string, string | number | boolean>;
  status?: { code: number; message?: string };
  trace?: string;
}

/** One OTLP/JSON span; times in ms after T0. */
function otlpSpan(spec: SpanSpec) {
  const nanos = (ms: number) => String(BigInt(Math.round((T0 + ms) * 1000)) * 1000n);
  return {
    traceId: spec.trace ?? TRACE,
    spanId: spec.id.padStart(16, '0'),
    ...(spec.parent ? { parentSpanId: spec.parent.padStart(16, '0') } : {}),
    name: spec.name,
    kind: spec.kind ?? 1,
    startTimeUnixNano: nanos(spec.start),
    endTimeUnixNano: nanos(spec.end),
    attributes: otlpAttributes(spec.attributes ?? {}),
    droppedAttributesCount: 0,
    events: [],
    links: [],
    status: spec.status ?? { code: 0 },
  };
}

function request(...spans: SpanSpec[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: otlpAttributes({ 'service.name': 'demo' }) },
        scopeSpans: [{ scope: { name: 'kop/runtime' }, spans: spans.map(otlpSpan) }],
      },
    ],
  };
}

const RECONCILE: SpanSpec = {
  id: 'a1',
  name: 'reconcile rediscluster',
  start: 0,
  end: 20,
  attributes: {
    'kop.controller.name': 'rediscluster',
    'k8s.namespace.name': 'default',
    'kop.k8s.object.name': 'rediscluster-sample',
    'kop.reconcile.result': 'success',
    'kop.queue.wait_ms': 1.5,
  },
};
const CACHE_GET: SpanSpec = {
  id: 'b1',
  parent: 'a1',
  name: 'cache get RedisCluster',
  start: 0.5,
  end: 0.6,
  attributes: { 'kop.cache.hit': true, 'kop.k8s.verb': 'get' },
};
const PUT_STATUS: SpanSpec = {
  id: 'b2',
  parent: 'a1',
  name: 'PUT redisclusters/status',
  kind: 3,
  start: 10,
  end: 20,
  attributes: { 'http.request.method': 'PUT', 'http.response.status_code': 200, 'kop.k8s.verb': 'update' },
};
const PATCH_CONFLICT: SpanSpec = {
  id: 'b3',
  parent: 'a1',
  name: 'PATCH redisclusters',
  kind: 3,
  start: 2,
  end: 9,
  attributes: { 'http.response.status_code': 409, 'http.request.resend_count': 2 },
  status: { code: 2, message: 'Conflict' },
};

describe('decodeOtlpTraces', () => {
  it('reads the spans of an OTLP/JSON export request: ids, parent, times in ms, attributes, status, service', () => {
    const spans = decodeOtlpTraces(request(RECONCILE, PATCH_CONFLICT));
    expect(spans).toHaveLength(2);
    expect(spans[0]).toEqual({
      traceId: TRACE,
      spanId: '00000000000000a1',
      name: 'reconcile rediscluster',
      kind: 1,
      startMs: T0,
      endMs: T0 + 20,
      attributes: {
        'kop.controller.name': 'rediscluster',
        'k8s.namespace.name': 'default',
        'kop.k8s.object.name': 'rediscluster-sample',
        'kop.reconcile.result': 'success',
        'kop.queue.wait_ms': 1.5,
      },
      statusCode: 0,
      serviceName: 'demo',
    });
    expect(spans[1]).toMatchObject({
      parentSpanId: '00000000000000a1',
      statusCode: 2,
      statusMessage: 'Conflict',
      attributes: { 'http.response.status_code': 409, 'http.request.resend_count': 2 },
    });
  });

  it('takes 64-bit integers and times as strings or numbers, arrays of values, and no spans at all', () => {
    const body = request(RECONCILE);
    const span = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]! as Record<string, unknown>;
    span.startTimeUnixNano = Number(BigInt(T0) * 1_000_000n);
    span.attributes = [
      { key: 'n', value: { intValue: '42' } },
      { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { boolValue: false }] } } },
    ];
    const [decoded] = decodeOtlpTraces(body);
    expect(decoded!.startMs).toBe(T0);
    expect(decoded!.attributes).toEqual({ n: 42, list: ['a', false] });
    expect(decodeOtlpTraces({})).toEqual([]);
    expect(decodeOtlpTraces({ resourceSpans: [{ scopeSpans: [{}] }] })).toEqual([]);
  });

  it.each([
    ['not an object', [], 'the request body is not a JSON object'],
    ['resourceSpans not a list', { resourceSpans: {} }, 'resourceSpans is not an array'],
    ['a short trace id', request({ ...RECONCILE, trace: 'abc' }), 'resourceSpans[0].scopeSpans[0].spans[0].traceId'],
    [
      'a time that is not nanoseconds',
      (() => {
        const body = request(RECONCILE);
        (body.resourceSpans[0]!.scopeSpans[0]!.spans[0]! as Record<string, unknown>).endTimeUnixNano = 'soon';
        return body;
      })(),
      'endTimeUnixNano is not a time in nanoseconds',
    ],
  ])('refuses %s, naming where', (_, body, message) => {
    expect(() => decodeOtlpTraces(body)).toThrow(OtlpDecodeError);
    expect(() => decodeOtlpTraces(body)).toThrow(message);
  });
});

const decode = (...specs: SpanSpec[]): DecodedSpan[] => decodeOtlpTraces(request(...specs));

describe('ReconcileTraces', () => {
  it('hands out a reconcile with its children once it settled, earliest child first', () => {
    const traces = new ReconcileTraces({ settleMs: 300 });
    traces.add(decode(PUT_STATUS, CACHE_GET, RECONCILE), 1_000);
    expect(traces.take(1_299)).toEqual([]);
    const [reconcile, ...rest] = traces.take(1_300);
    expect(rest).toEqual([]);
    expect(reconcile!.root.name).toBe('reconcile rediscluster');
    expect(reconcile!.children.map((node) => node.span.name)).toEqual([
      'cache get RedisCluster',
      'PUT redisclusters/status',
    ]);
    expect(traces.size).toBe(0);
    expect(traces.take(5_000)).toEqual([]);
  });

  it('waits for children that come in a later batch than their reconcile', () => {
    const traces = new ReconcileTraces({ settleMs: 300 });
    traces.add(decode(RECONCILE), 1_000);
    traces.add(decode(CACHE_GET), 1_100);
    traces.add(decode(PUT_STATUS), 1_250);
    const [reconcile] = traces.take(1_300);
    expect(reconcile!.children.map((node) => node.span.spanId)).toEqual(['00000000000000b1', '00000000000000b2']);
  });

  it('builds the tree from spans out of order: a grandchild before its parent, children before the root', () => {
    const grandchild: SpanSpec = { id: 'c1', parent: 'b2', name: 'GET secrets', start: 11, end: 12 };
    const traces = new ReconcileTraces({ settleMs: 0 });
    traces.add(decode(grandchild), 1);
    traces.add(decode(PUT_STATUS, CACHE_GET), 2);
    traces.add(decode(RECONCILE, CACHE_GET), 3); // CACHE_GET sent twice (a retried export): counted once
    const [reconcile] = traces.take(3);
    expect(reconcile!.children).toHaveLength(2);
    expect(reconcile!.children[1]!.children.map((node) => node.span.name)).toEqual(['GET secrets']);
  });

  it('keeps two reconciles of one batch apart and drops spans of no reconcile after their time', () => {
    const other: SpanSpec = { ...RECONCILE, id: 'a2', trace: 'f'.repeat(32), start: -50, end: -40 };
    const watch: SpanSpec = { id: 'd1', name: 'watch event MODIFIED', start: -60, end: -59, trace: 'e'.repeat(32) };
    const traces = new ReconcileTraces({ settleMs: 0, orphanTtlMs: 1_000 });
    traces.add(decode(RECONCILE, PUT_STATUS, other, watch), 0);
    const taken = traces.take(0);
    expect(taken.map((trace) => [trace.root.spanId, trace.children.length])).toEqual([
      ['00000000000000a2', 0],
      ['00000000000000a1', 1],
    ]);
    expect(traces.size).toBe(1);
    traces.take(999);
    expect(traces.size).toBe(1);
    traces.take(1_000);
    expect(traces.size).toBe(0);
  });
});

describe('renderWaterfall', () => {
  const trace = () => {
    const traces = new ReconcileTraces({ settleMs: 0 });
    traces.add(decode(RECONCILE, CACHE_GET, PATCH_CONFLICT, PUT_STATUS), 0);
    return traces.take(0)[0]!;
  };

  it('prints the reconcile, its queue wait, and each child as a bar on the reconcile’s duration', () => {
    expect(renderWaterfall(trace(), { barWidth: 20 })).toEqual([
      'reconcile rediscluster default/rediscluster-sample · success · 20.0 ms · queued 1.5 ms',
      '  cache get RedisCluster    hit             |█                   |  0.10 ms',
      '  PATCH redisclusters       409, 2 retries  |  ███████           |  7.0 ms',
      '  PUT redisclusters/status  200             |          ██████████|  10.0 ms',
    ]);
  });

  it('says why a reconcile failed, how long it asked to wait, and cuts long lists', () => {
    const failed = trace();
    failed.root = {
      ...failed.root,
      attributes: { ...failed.root.attributes, 'kop.reconcile.result': 'error', 'error.type': 'Conflict' },
      statusCode: 2,
      statusMessage: 'the object has been modified\nat ...',
    };
    expect(renderWaterfall(failed, { maxRows: 1 })).toEqual([
      expect.stringContaining('· error (Conflict): the object has been modified ·'),
      expect.stringMatching(/^ {2}cache get RedisCluster {2}hit/),
      '  … 2 more spans',
    ]);
    const later = trace();
    later.root = {
      ...later.root,
      attributes: {
        ...later.root.attributes,
        'kop.reconcile.result': 'requeue_after',
        'kop.reconcile.requeue_after_ms': 30_000,
      },
    };
    expect(renderWaterfall(later)[0]).toContain('· requeue after 30.00 s ·');
  });

  it('indents grandchildren and keeps a zero-length reconcile drawable', () => {
    const traces = new ReconcileTraces({ settleMs: 0 });
    traces.add(
      decode(
        { ...RECONCILE, end: 0 },
        { id: 'b1', parent: 'a1', name: 'cache list Pod', start: 0, end: 0 },
        {
          id: 'c1',
          parent: 'b1',
          name: 'GET pods',
          start: 0,
          end: 0,
          attributes: { 'http.response.status_code': 200 },
        },
      ),
      0,
    );
    const lines = renderWaterfall(traces.take(0)[0]!, { barWidth: 4 });
    expect(lines.slice(1)).toEqual([
      '  cache list Pod       |█   |  0.00 ms',
      '    GET pods      200  |█   |  0.00 ms',
    ]);
  });

  it('formats durations for a terminal', () => {
    expect([0.049, 8.14, 120.4, 1_240].map(formatMs)).toEqual(['0.05 ms', '8.1 ms', '120 ms', '1.24 s']);
  });
});

describe('TraceReceiver', () => {
  it('takes OTLP/JSON on /v1/traces and refuses, saying why, what it cannot read', async () => {
    const received: DecodedSpan[][] = [];
    const refused: string[] = [];
    const receiver = await TraceReceiver.start({
      onSpans: (spans) => received.push(spans),
      onRefused: (message) => refused.push(message),
    });
    try {
      expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const post = (path: string, body: string, type = 'application/json') =>
        fetch(`${receiver.url}${path}`, { method: 'POST', body, headers: { 'content-type': type } });
      const ok = await post('/v1/traces', JSON.stringify(request(RECONCILE, CACHE_GET)));
      expect([ok.status, await ok.text()]).toEqual([200, '{}']);
      expect(received.map((batch) => batch.map((span) => span.name))).toEqual([
        ['reconcile rediscluster', 'cache get RedisCluster'],
      ]);
      expect((await post('/v1/metrics', '{}')).status).toBe(404);
      expect((await fetch(`${receiver.url}/v1/traces`)).status).toBe(405);
      const protobuf = await post('/v1/traces', 'x', 'application/x-protobuf');
      expect(protobuf.status).toBe(415);
      expect(await protobuf.text()).toContain('set OTEL_EXPORTER_OTLP_PROTOCOL=http/json');
      const broken = await post('/v1/traces', JSON.stringify({ resourceSpans: 1 }));
      expect(broken.status).toBe(400);
      expect(refused).toEqual([
        expect.stringContaining('application/x-protobuf'),
        'an OTLP/JSON request kop dev cannot read: resourceSpans is not an array',
      ]);
      expect(received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
