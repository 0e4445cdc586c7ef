import type { PhaseHandlers } from '../../project/index.js';
import type { VirtualTree } from '../../scaffold/index.js';
import type { EditStep } from '../edit-step.js';
import { CONTROLLER_RESOURCES_DASHBOARD, CONTROLLER_RUNTIME_DASHBOARD } from './builtin-dashboards.js';
import {
  CUSTOM_METRICS_CONFIG,
  CUSTOM_METRICS_DASHBOARD,
  CUSTOM_METRICS_TEMPLATE,
  customMetricsDashboard,
  parseCustomMetrics,
} from './custom-metrics.js';
import { renderDashboard } from './dashboard.js';

/** The dashboards' files, as Kubebuilder's grafana plugin names them. */
export const GRAFANA_FILES = {
  controllerRuntime: 'grafana/controller-runtime-metrics.json',
  controllerResources: 'grafana/controller-resources-metrics.json',
  customMetricsConfig: CUSTOM_METRICS_CONFIG,
  customMetricsDashboard: CUSTOM_METRICS_DASHBOARD,
} as const;

/**
 * `kop edit --plugins grafana.kubebuilder.io/v1-alpha`: the two dashboards of the manager's own
 * metrics (generated: rewritten on every run), the custom-metrics list (scaffolded once: yours),
 * and, when that list names metrics, their dashboard.
 */
export async function stageGrafanaDashboards(tree: VirtualTree): Promise<void> {
  tree.write(GRAFANA_FILES.controllerRuntime, renderDashboard(CONTROLLER_RUNTIME_DASHBOARD), { kind: 'generated' });
  tree.write(GRAFANA_FILES.controllerResources, renderDashboard(CONTROLLER_RESOURCES_DASHBOARD), { kind: 'generated' });
  await tree.scaffold(GRAFANA_FILES.customMetricsConfig, CUSTOM_METRICS_TEMPLATE, { ifExists: 'skip' });
  const config = await tree.read(GRAFANA_FILES.customMetricsConfig);
  const metrics = parseCustomMetrics(config ?? '');
  if (metrics.length > 0) {
    tree.write(GRAFANA_FILES.customMetricsDashboard, renderDashboard(customMetricsDashboard(metrics)), {
      kind: 'generated',
    });
  } else if (await tree.exists(GRAFANA_FILES.customMetricsDashboard)) {
    // The list was emptied: its dashboard goes too.
    tree.remove(GRAFANA_FILES.customMetricsDashboard);
  }
}

/** The grafana plugin's handler of kop edit's phases: it stages the dashboards. */
export function grafanaPhases(): PhaseHandlers<EditStep> {
  return { scaffold: (step) => stageGrafanaDashboards(step.tree) };
}
