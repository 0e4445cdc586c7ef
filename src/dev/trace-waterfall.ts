import type { DecodedSpan } from './otlp-json.js';
import type { ReconcileTrace, SpanNode } from './reconcile-traces.js';

/** Options of {@link renderWaterfall}. */
export interface WaterfallOptions {
  /** Columns of the bars, which span the reconcile's duration. Default 30. */
  barWidth?: number;
  /** Rows shown under the header at most; the rest are counted in one line. Default 40. */
  maxRows?: number;
}

/**
 * A finished reconcile as terminal lines: a header (controller, namespace/name, result, duration,
 * time waited in the queue), then each span under it (cache reads, API calls with their status
 * code, ...) indented by depth, with a bar placed and sized on the reconcile's own duration:
 *
 * ```
 * reconcile rediscluster default/rediscluster-sample · success · 12.4 ms · queued 0.3 ms
 *   cache get RedisCluster     hit   |█                             |  0.05 ms
 *   PUT redisclusters/status   200   |     ████████████████████     |  8.1 ms
 * ```
 */
export function renderWaterfall(trace: ReconcileTrace, options: WaterfallOptions = {}): string[] {
  const barWidth = options.barWidth ?? 30;
  const maxRows = options.maxRows ?? 40;
  const { root } = trace;
  const rows: Array<{ label: string; detail: string; span: DecodedSpan }> = [];
  const walk = (nodes: readonly SpanNode[], depth: number) => {
    for (const node of nodes) {
      rows.push({ label: `${'  '.repeat(depth)}${node.span.name}`, detail: detailOf(node.span), span: node.span });
      walk(node.children, depth + 1);
    }
  };
  walk(trace.children, 0);

  const lines = [headerOf(root)];
  const shown = rows.slice(0, maxRows);
  const labelWidth = Math.min(48, Math.max(0, ...shown.map((row) => row.label.length)));
  const detailWidth = Math.max(0, ...shown.map((row) => row.detail.length));
  const total = Math.max(root.endMs - root.startMs, 0.001);
  for (const row of shown) {
    const label = row.label.length > labelWidth ? `${row.label.slice(0, labelWidth - 1)}…` : row.label;
    lines.push(
      `  ${label.padEnd(labelWidth)}  ${row.detail.padEnd(detailWidth)}  |${bar(row.span, root.startMs, total, barWidth)}|  ${formatMs(row.span.endMs - row.span.startMs)}`,
    );
  }
  if (rows.length > shown.length) lines.push(`  … ${rows.length - shown.length} more spans`);
  return lines;
}

/** `reconcile <controller> <namespace>/<name> · <result> · <duration> · queued <wait>`. */
function headerOf(root: DecodedSpan): string {
  const a = root.attributes;
  const namespace = typeof a['k8s.namespace.name'] === 'string' ? `${a['k8s.namespace.name']}/` : '';
  const name = typeof a['kop.k8s.object.name'] === 'string' ? a['kop.k8s.object.name'] : '?';
  const parts = [`${root.name} ${namespace}${name}`, resultOf(root), formatMs(root.endMs - root.startMs)];
  if (typeof a['kop.queue.wait_ms'] === 'number') parts.push(`queued ${formatMs(a['kop.queue.wait_ms'])}`);
  if (typeof a['kop.reconcile.retries'] === 'number') parts.push(`retry ${a['kop.reconcile.retries']}`);
  return parts.join(' · ');
}

/** The reconcile's result: success, requeue, requeue after <time>, or the error and its type. */
function resultOf(root: DecodedSpan): string {
  const a = root.attributes;
  const result = typeof a['kop.reconcile.result'] === 'string' ? a['kop.reconcile.result'] : undefined;
  if (result === 'requeue_after' && typeof a['kop.reconcile.requeue_after_ms'] === 'number')
    return `requeue after ${formatMs(a['kop.reconcile.requeue_after_ms'])}`;
  if (result === 'error' || root.statusCode === 2) {
    const type = typeof a['error.type'] === 'string' ? ` (${a['error.type']})` : '';
    return `error${type}${root.statusMessage ? `: ${oneLine(root.statusMessage)}` : ''}`;
  }
  return result ?? 'unknown';
}

/** What a row says besides its name: an API call's status code and retries, a cache read's hit or sync, an error. */
function detailOf(span: DecodedSpan): string {
  const a = span.attributes;
  const parts: string[] = [];
  if (typeof a['http.response.status_code'] === 'number') parts.push(String(a['http.response.status_code']));
  else if (typeof a['error.type'] === 'string') parts.push(a['error.type']);
  if (typeof a['http.request.resend_count'] === 'number' && a['http.request.resend_count'] > 0)
    parts.push(`${a['http.request.resend_count']} ${a['http.request.resend_count'] === 1 ? 'retry' : 'retries'}`);
  if (a['kop.cache.synced_informer'] === true) parts.push('synced informer');
  else if (a['kop.cache.hit'] === true) parts.push('hit');
  else if (a['kop.cache.hit'] === false) parts.push('miss');
  if (span.statusCode === 2 && parts.length === 0) parts.push('error');
  return parts.join(', ');
}

/** A bar of `width` columns: blank before the span starts, filled while it runs (one column at least). */
function bar(span: DecodedSpan, rootStart: number, total: number, width: number): string {
  const clamp = (n: number) => Math.min(width, Math.max(0, n));
  const from = clamp(Math.floor(((span.startMs - rootStart) / total) * width));
  const to = clamp(Math.max(from + 1, Math.ceil(((span.endMs - rootStart) / total) * width)));
  const start = Math.min(from, width - 1);
  return ' '.repeat(start) + '█'.repeat(Math.max(1, to - start)) + ' '.repeat(width - Math.max(start + 1, to));
}

/** `0.05 ms`, `8.1 ms`, `120 ms`, `1.24 s`. */
export function formatMs(ms: number): string {
  if (ms >= 1_000) return `${(ms / 1_000).toFixed(2)} s`;
  if (ms >= 100) return `${Math.round(ms)} ms`;
  if (ms >= 1) return `${ms.toFixed(1)} ms`;
  return `${Math.max(0, ms).toFixed(2)} ms`;
}

function oneLine(text: string): string {
  const line = text.split('\n')[0]!;
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
