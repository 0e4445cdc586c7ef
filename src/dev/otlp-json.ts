/** An attribute value of a span as OTLP/JSON carries it, flattened (arrays as arrays, bytes as base64). */
export type AttributeValue = string | number | boolean | null | AttributeValue[];

/** One finished span out of an OTLP/JSON export request, with its times in milliseconds since the epoch. */
export interface DecodedSpan {
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer (0 unspecified). */
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage?: string;
  /** The `service.name` of the resource that sent it. */
  serviceName?: string;
}

/** The body of an OTLP/JSON request that is not an ExportTraceServiceRequest. */
export class OtlpDecodeError extends Error {
  override name = 'OtlpDecodeError';
}

/**
 * Decodes an OTLP/HTTP JSON ExportTraceServiceRequest (`{resourceSpans: [{resource, scopeSpans:
 * [{spans}]}]}`) into flat spans. OTLP/JSON writes ids as hex strings, 64-bit times as decimal
 * strings (or numbers) and enums as numbers; a span without a trace id, span id or name, or with
 * times that are not integers, is an error naming where it is, since a receiver must not show a
 * trace made of half-read spans.
 */
export function decodeOtlpTraces(body: unknown): DecodedSpan[] {
  if (!isObject(body)) throw new OtlpDecodeError('the request body is not a JSON object');
  const spans: DecodedSpan[] = [];
  const resourceSpans = optionalArray(body.resourceSpans, 'resourceSpans');
  resourceSpans.forEach((entry, r) => {
    const where = `resourceSpans[${r}]`;
    if (!isObject(entry)) throw new OtlpDecodeError(`${where} is not an object`);
    const resource = isObject(entry.resource) ? entry.resource : {};
    const resourceAttributes = decodeAttributes(resource.attributes, `${where}.resource.attributes`);
    const serviceName = resourceAttributes['service.name'];
    optionalArray(entry.scopeSpans, `${where}.scopeSpans`).forEach((scope, s) => {
      if (!isObject(scope)) throw new OtlpDecodeError(`${where}.scopeSpans[${s}] is not an object`);
      optionalArray(scope.spans, `${where}.scopeSpans[${s}].spans`).forEach((span, i) => {
        spans.push(decodeSpan(span, `${where}.scopeSpans[${s}].spans[${i}]`, serviceName));
      });
    });
  });
  return spans;
}

function decodeSpan(span: unknown, where: string, serviceName: AttributeValue | undefined): DecodedSpan {
  if (!isObject(span)) throw new OtlpDecodeError(`${where} is not an object`);
  const traceId = hexId(span.traceId, 32, `${where}.traceId`);
  const spanId = hexId(span.spanId, 16, `${where}.spanId`);
  const parent = span.parentSpanId;
  const parentSpanId = parent === undefined || parent === '' ? undefined : hexId(parent, 16, `${where}.parentSpanId`);
  if (typeof span.name !== 'string' || span.name === '') throw new OtlpDecodeError(`${where}.name is missing`);
  const status = isObject(span.status) ? span.status : {};
  const decoded: DecodedSpan = {
    traceId,
    spanId,
    name: span.name,
    kind: typeof span.kind === 'number' ? span.kind : 0,
    startMs: nanosToMs(span.startTimeUnixNano, `${where}.startTimeUnixNano`),
    endMs: nanosToMs(span.endTimeUnixNano, `${where}.endTimeUnixNano`),
    attributes: decodeAttributes(span.attributes, `${where}.attributes`),
    statusCode: typeof status.code === 'number' ? status.code : 0,
  };
  if (parentSpanId !== undefined) decoded.parentSpanId = parentSpanId;
  if (typeof status.message === 'string' && status.message !== '') decoded.statusMessage = status.message;
  if (typeof serviceName === 'string') decoded.serviceName = serviceName;
  return decoded;
}

/** `[{key, value: {stringValue | intValue | ...}}]` as a record. */
function decodeAttributes(list: unknown, where: string): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  optionalArray(list, where).forEach((entry, i) => {
    if (!isObject(entry) || typeof entry.key !== 'string') throw new OtlpDecodeError(`${where}[${i}] has no key`);
    attributes[entry.key] = decodeValue(entry.value, `${where}[${i}].value`);
  });
  return attributes;
}

function decodeValue(value: unknown, where: string): AttributeValue {
  if (!isObject(value)) return null;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue !== undefined) {
    // 64-bit integers are strings in OTLP/JSON; a number is accepted too.
    const n = Number(value.intValue);
    if (!Number.isInteger(n)) throw new OtlpDecodeError(`${where}.intValue is not an integer`);
    return n;
  }
  if (value.doubleValue !== undefined) {
    const n = Number(value.doubleValue);
    if (Number.isNaN(n) && value.doubleValue !== 'NaN')
      throw new OtlpDecodeError(`${where}.doubleValue is not a number`);
    return n;
  }
  if (typeof value.bytesValue === 'string') return value.bytesValue;
  if (isObject(value.arrayValue)) {
    return optionalArray(value.arrayValue.values, `${where}.arrayValue.values`).map((item, i) =>
      decodeValue(item, `${where}.arrayValue.values[${i}]`),
    );
  }
  return null;
}

function hexId(value: unknown, length: number, where: string): string {
  if (typeof value !== 'string' || value.length !== length || !/^[0-9a-fA-F]+$/.test(value))
    throw new OtlpDecodeError(`${where} is not ${length} hex digits`);
  return value.toLowerCase();
}

/** Nanoseconds since the epoch (a decimal string or a number) as milliseconds, exact to the microsecond. */
function nanosToMs(value: unknown, where: string): number {
  let nanos: bigint;
  try {
    if (typeof value === 'string' && /^\d+$/.test(value)) nanos = BigInt(value);
    else if (typeof value === 'number' && Number.isInteger(value) && value >= 0) nanos = BigInt(value);
    else throw new Error();
  } catch {
    throw new OtlpDecodeError(`${where} is not a time in nanoseconds`);
  }
  return Number(nanos / 1000n) / 1000;
}

function optionalArray(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${where} is not an array`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
