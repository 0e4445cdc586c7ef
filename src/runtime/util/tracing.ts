import {
  SpanStatusCode,
  context,
  trace,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';

/**
 * kop/runtime traces through the OpenTelemetry API only: without an SDK registered in the
 * process, every span is a non-recording one and nothing is exported. The tracer is asked for on
 * each use (the API's proxy resolves it once an SDK registers), never cached before that.
 */
export const TRACER_NAME = 'kop/runtime';

let cached: Tracer | undefined;

/** The tracer of kop/runtime (a proxy until an SDK registers, then the SDK's). */
export function tracer(): Tracer {
  return (cached ??= trace.getTracer(TRACER_NAME));
}

/** The span active now, when it records; undefined without an SDK or outside a span. */
export function recordingSpan(): Span | undefined {
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? span : undefined;
}

/** The span context active now when it is a valid one (what a queued key links back to). */
export function activeSpanContext(): SpanContext | undefined {
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const spanContext = span.spanContext();
  return trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * Runs `fn` in a new span of kop/runtime's tracer, made the active one, and ends it when `fn`
 * returns or its promise settles; an error ends it with status ERROR. Without a recording SDK the
 * span is dropped at once and `fn` runs as it is, given `undefined` (callers skip their
 * attribute work then).
 */
export function inSpan<R>(name: string, options: SpanOptions, fn: (span: Span | undefined) => R): R {
  const span = tracer().startSpan(name, options);
  if (!span.isRecording()) return fn(undefined);
  let result: R;
  try {
    result = context.with(trace.setSpan(context.active(), span), fn, undefined, span);
  } catch (err) {
    endWithError(span, err);
    throw err;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        endWithError(span, err);
        throw err;
      },
    ) as R;
  }
  span.end();
  return result;
}

/** Records `err` on `span` (an exception event, status ERROR) and ends it. */
export function endWithError(span: Span, err: unknown): void {
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  span.end();
}
