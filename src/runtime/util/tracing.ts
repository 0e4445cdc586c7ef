import { context, trace, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';

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
