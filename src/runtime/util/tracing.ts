import {
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanStatusCode,
  context,
  trace,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

/**
 * kop/runtime traces through the OpenTelemetry API only: without an SDK registered in the
 * process, no span is made at all (the API would hand out non-recording ones, each an allocation
 * and a few calls on paths that run for every request, watch event and cache read).
 */
export const TRACER_NAME = 'kop/runtime';

/** The API's no-op provider: what its proxy delegates to until an SDK registers a provider. */
const NO_PROVIDER = new ProxyTracerProvider().getDelegate();

let cached: { provider: TracerProvider; tracer: Tracer } | undefined;

/**
 * The tracer of kop/runtime when an SDK registered a tracer provider; undefined otherwise, and
 * then callers skip their span work altogether. Asked on each use (a check of the global
 * provider, no allocation): an SDK may register after kop/runtime loaded, and tests unregister it.
 */
export function tracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  // The API's own proxy without a delegate: nothing registered. A provider of another copy of
  // the API is not one of these, so it counts as registered.
  if (provider instanceof ProxyTracerProvider && provider.getDelegate() === NO_PROVIDER) return undefined;
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer(TRACER_NAME) };
  return cached.tracer;
}

/** The span active now, when it records; undefined without an SDK or outside a span. */
export function recordingSpan(): Span | undefined {
  const active = context.active();
  if (active === ROOT_CONTEXT) return undefined;
  const span = trace.getSpan(active);
  return span?.isRecording() ? span : undefined;
}

/**
 * The span context active now when it is a valid one (what a queued key links back to, what a
 * log line names). Without a context manager (no SDK) the active context is always the root one.
 */
export function activeSpanContext(): SpanContext | undefined {
  const active = context.active();
  if (active === ROOT_CONTEXT) return undefined;
  const span = trace.getSpan(active);
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
  const span = tracer()?.startSpan(name, options);
  if (!span?.isRecording()) return fn(undefined);
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
