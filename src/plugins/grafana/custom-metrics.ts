import { parse } from 'yaml';
import { KopError } from '../../base/index.js';
import type { DashboardSpec, PanelSpec } from './dashboard.js';

/** Where the custom metrics are listed (Kubebuilder's grafana plugin reads the same file). */
export const CUSTOM_METRICS_CONFIG = 'grafana/custom-metrics/config.yaml';
/** The dashboard made from that list. */
export const CUSTOM_METRICS_DASHBOARD = 'grafana/custom-metrics/custom-metrics-dashboard.json';

/** One metric of grafana/custom-metrics/config.yaml. */
export interface CustomMetric {
  /** The metric's name as the manager exports it, e.g. `memcached_deployments_created_total`. */
  metric: string;
  type: 'counter' | 'gauge' | 'histogram';
  /** PromQL to plot instead of the one kop derives from the type. */
  expr?: string;
  /** Grafana's unit id (`s`, `bytes`, `percent`, `none`...); default `none`. */
  unit?: string;
}

/** The config file as the plugin first writes it: an empty list, with how to fill it. */
export const CUSTOM_METRICS_TEMPLATE = `# Metrics your reconcilers export (registered on the manager's metrics registry, e.g.
# new Counter({ name: 'memcached_deployments_created_total', ..., registers: [manager.metrics.registry] })).
# List them here and run \`kop edit --plugins grafana.kubebuilder.io/v1-alpha\` again:
# kop writes ${CUSTOM_METRICS_DASHBOARD} with one panel per metric.
#
# customMetrics:
#   - metric: memcached_deployments_created_total  # the exported name (required)
#     type: counter                                # counter, gauge or histogram (required)
#     expr: sum(rate(memcached_deployments_created_total[5m]))  # PromQL to plot instead (optional)
#     unit: none                                   # Grafana unit: s, bytes, percent, none... (optional)
customMetrics: []
`;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const UNIT = /^[A-Za-z0-9_:./%-]{1,40}$/;
const TYPES = ['counter', 'gauge', 'histogram'];

/** Reads and checks the config; a clear error naming the file and entry when it is not usable. */
export function parseCustomMetrics(text: string): CustomMetric[] {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new KopError(`${CUSTOM_METRICS_CONFIG} is not valid YAML: ${(error as Error).message}`);
  }
  if (data === null || data === undefined) return [];
  const list = (data as { customMetrics?: unknown }).customMetrics;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list))
    throw new KopError(
      `${CUSTOM_METRICS_CONFIG}: customMetrics must be a list`,
      'see the comment at the top of the file',
    );
  return list.map((entry: unknown, index) => {
    const where = `${CUSTOM_METRICS_CONFIG}: customMetrics[${index}]`;
    if (typeof entry !== 'object' || entry === null)
      throw new KopError(`${where} must be a mapping with metric and type`);
    const { metric, type, expr, unit, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined)
      throw new KopError(`${where}: unknown key "${unknown}"; the keys are metric, type, expr, unit`);
    if (typeof metric !== 'string' || !METRIC_NAME.test(metric)) {
      throw new KopError(
        `${where}: metric ${JSON.stringify(metric)} is not a Prometheus metric name`,
        'use letters, digits, _ and :, not starting with a digit',
      );
    }
    if (typeof type !== 'string' || !TYPES.includes(type))
      throw new KopError(`${where}: type must be one of ${TYPES.join(', ')}, not ${JSON.stringify(type)}`);
    if (expr !== undefined && (typeof expr !== 'string' || expr.trim() === ''))
      throw new KopError(`${where}: expr must be a PromQL expression (a string)`);
    if (unit !== undefined && (typeof unit !== 'string' || !UNIT.test(unit)))
      throw new KopError(`${where}: unit must be a Grafana unit id such as s, bytes or percent`);
    return {
      metric,
      type: type as CustomMetric['type'],
      ...(expr !== undefined ? { expr: expr as string } : {}),
      ...(unit !== undefined ? { unit: unit as string } : {}),
    };
  });
}

const FILTER = 'job=~"$job", instance=~"$instance"';

/** The PromQL a metric of that type is plotted with when the config gives none. */
export function defaultQuery(metric: CustomMetric): string {
  switch (metric.type) {
    case 'counter':
      return `sum by (instance) (rate(${metric.metric}{${FILTER}}[$__rate_interval]))`;
    case 'gauge':
      return `sum by (instance) (${metric.metric}{${FILTER}})`;
    case 'histogram': {
      const base = metric.metric.replace(/_bucket$/, '');
      return `histogram_quantile(0.99, sum by (instance, le) (rate(${base}_bucket{${FILTER}}[$__rate_interval])))`;
    }
  }
}

/** One panel per custom metric. */
export function customMetricsDashboard(metrics: readonly CustomMetric[]): DashboardSpec {
  const panels: PanelSpec[] = metrics.map((metric) => ({
    title: metric.metric,
    description: `${metric.type}${metric.expr ? '' : metric.type === 'counter' ? ', per second' : metric.type === 'histogram' ? ', p99' : ''} (from ${CUSTOM_METRICS_CONFIG})`,
    unit: metric.unit ?? 'none',
    queries: [{ expr: metric.expr ?? defaultQuery(metric), legend: '{{instance}}' }],
  }));
  return {
    uid: 'kop-custom-metrics',
    title: 'Operator / Custom metrics',
    description: `The metrics listed in ${CUSTOM_METRICS_CONFIG}.`,
    variables: [
      { name: 'job', label: 'Job', query: 'label_values(process_start_time_seconds, job)' },
      { name: 'instance', label: 'Instance', query: 'label_values(process_start_time_seconds{job=~"$job"}, instance)' },
    ],
    rows: [{ title: 'Custom metrics', panels }],
  };
}
