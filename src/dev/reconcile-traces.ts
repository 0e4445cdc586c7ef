import type { DecodedSpan } from './otlp-json.js';

/** A span and the spans under it, earliest first. */
export interface SpanNode {
  span: DecodedSpan;
  children: SpanNode[];
}

/** One finished reconcile: its span (`reconcile <controller>`) and every span under it. */
export interface ReconcileTrace {
  root: DecodedSpan;
  children: SpanNode[];
}

/** Options of {@link ReconcileTraces}. */
export interface ReconcileTracesOptions {
  /**
   * How long a reconcile waits, once its span arrived, for spans under it still to come: the
   * exporter sends spans in batches as they end, so a child may come in the batch after its
   * reconcile's. Default 300 ms.
   */
  settleMs?: number;
  /** Spans of no reconcile (a watch event's, an informer's list) are dropped after this long. Default 60 s. */
  orphanTtlMs?: number;
}

interface TraceEntry {
  spans: Map<string, DecodedSpan>;
  lastSeenMs: number;
}

/**
 * Groups the spans a receiver gets, batch by batch and in any order, into finished reconciles.
 * A reconcile is ready once its own span has been here `settleMs`; {@link take} hands it out with
 * every span under it received so far and forgets them. Times are passed in, so it is pure.
 */
export class ReconcileTraces {
  private readonly traces = new Map<string, TraceEntry>();
  /** Reconcile spans not handed out yet: span id to trace id and arrival time. */
  private readonly roots = new Map<string, { traceId: string; arrivedMs: number }>();
  private readonly settleMs: number;
  private readonly orphanTtlMs: number;

  constructor(options: ReconcileTracesOptions = {}) {
    this.settleMs = options.settleMs ?? 300;
    this.orphanTtlMs = options.orphanTtlMs ?? 60_000;
  }

  /** Takes in a batch of spans received at `nowMs`; a span seen before (a retried export) counts once. */
  add(spans: readonly DecodedSpan[], nowMs: number): void {
    for (const span of spans) {
      let entry = this.traces.get(span.traceId);
      if (!entry) {
        entry = { spans: new Map(), lastSeenMs: nowMs };
        this.traces.set(span.traceId, entry);
      }
      entry.lastSeenMs = nowMs;
      entry.spans.set(span.spanId, span);
      if (isReconcile(span) && !this.roots.has(span.spanId))
        this.roots.set(span.spanId, { traceId: span.traceId, arrivedMs: nowMs });
    }
  }

  /** The reconciles whose span arrived `settleMs` or more before `nowMs` (all of them with `Infinity`), earliest first. */
  take(nowMs: number): ReconcileTrace[] {
    const ready: ReconcileTrace[] = [];
    for (const [spanId, { traceId, arrivedMs }] of this.roots) {
      if (nowMs - arrivedMs < this.settleMs) continue;
      this.roots.delete(spanId);
      const entry = this.traces.get(traceId);
      const root = entry?.spans.get(spanId);
      if (!entry || !root) continue;
      entry.spans.delete(spanId);
      ready.push({ root, children: this.detach(entry, spanId) });
    }
    for (const [traceId, entry] of this.traces) {
      const hasRoot = [...entry.spans.keys()].some((id) => this.roots.has(id));
      if (entry.spans.size === 0 || (!hasRoot && nowMs - entry.lastSeenMs >= this.orphanTtlMs))
        this.traces.delete(traceId);
    }
    return ready.sort((a, b) => a.root.startMs - b.root.startMs);
  }

  /** How many spans are held (waiting for their reconcile or for the orphan timeout). */
  get size(): number {
    let n = 0;
    for (const entry of this.traces.values()) n += entry.spans.size;
    return n;
  }

  /** Removes the spans under `parentId` from `entry` and returns them as a tree, earliest first. */
  private detach(entry: TraceEntry, parentId: string): SpanNode[] {
    const children = [...entry.spans.values()].filter((span) => span.parentSpanId === parentId);
    for (const child of children) entry.spans.delete(child.spanId);
    return children
      .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs)
      .map((span) => ({ span, children: this.detach(entry, span.spanId) }));
  }
}

/** kop/runtime's span of one reconcile: `reconcile <controller>` with its controller's name. */
export function isReconcile(span: DecodedSpan): boolean {
  return span.name.startsWith('reconcile ') && typeof span.attributes['kop.controller.name'] === 'string';
}
