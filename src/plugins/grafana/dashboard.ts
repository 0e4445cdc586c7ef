import { GENERATED_HEADER } from '../../scaffold/index.js';

/** One PromQL query of a panel and how its series are named in the legend. */
export interface PanelQuery {
  expr: string;
  legend: string;
}

/** One time-series (or stat) panel of a dashboard. */
export interface PanelSpec {
  title: string;
  description: string;
  /** Grafana's unit id: `s`, `bytes`, `ops`, `short`, `percentunit`, `none`... */
  unit: string;
  queries: PanelQuery[];
  /** `stat` for a single current value; a time series otherwise. */
  kind?: 'timeseries' | 'stat';
}

/** A row of panels under a heading. */
export interface RowSpec {
  title: string;
  panels: PanelSpec[];
}

/** A template variable whose values come from a label of a metric (`label_values(metric{...}, label)`). */
export interface LabelVariable {
  name: string;
  label: string;
  query: string;
}

/** What a dashboard shows; {@link renderDashboard} turns it into Grafana's JSON model. */
export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  variables: LabelVariable[];
  rows: RowSpec[];
}

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
const PANEL_WIDTH = 12;
const PANEL_HEIGHT = 8;

/**
 * Grafana's JSON model of a dashboard (schema 39, importable through Dashboards → Import): a
 * Prometheus data source variable, the label variables, then the rows, two panels a line.
 */
export function renderDashboard(spec: DashboardSpec): string {
  const panels: unknown[] = [];
  let id = 1;
  let y = 0;
  for (const row of spec.rows) {
    panels.push({
      id: id++,
      type: 'row',
      title: row.title,
      collapsed: false,
      gridPos: { x: 0, y, w: 24, h: 1 },
      panels: [],
    });
    y += 1;
    row.panels.forEach((panel, index) => {
      const x = (index % 2) * PANEL_WIDTH;
      if (index > 0 && index % 2 === 0) y += PANEL_HEIGHT;
      panels.push(renderPanel(panel, id++, { x, y, w: PANEL_WIDTH, h: PANEL_HEIGHT }));
    });
    if (row.panels.length > 0) y += PANEL_HEIGHT;
  }
  const dashboard = {
    uid: spec.uid,
    title: spec.title,
    description: `${spec.description} ${GENERATED_HEADER}`,
    tags: ['kop', 'operator'],
    editable: true,
    schemaVersion: 39,
    timezone: 'browser',
    time: { from: 'now-1h', to: 'now' },
    refresh: '30s',
    templating: {
      list: [
        { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {}, hide: 0 },
        ...spec.variables.map((variable) => ({
          name: variable.name,
          label: variable.label,
          type: 'query',
          datasource: DATASOURCE,
          query: { query: variable.query, refId: `${variable.name}-values` },
          definition: variable.query,
          refresh: 2,
          includeAll: true,
          allValue: '.*',
          multi: true,
          current: { text: 'All', value: '$__all' },
          sort: 1,
          hide: 0,
        })),
      ],
    },
    annotations: { list: [] },
    panels,
  };
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}

function renderPanel(panel: PanelSpec, id: number, gridPos: { x: number; y: number; w: number; h: number }): unknown {
  const kind = panel.kind ?? 'timeseries';
  return {
    id,
    type: kind,
    title: panel.title,
    description: panel.description,
    datasource: DATASOURCE,
    gridPos,
    fieldConfig: {
      defaults: {
        unit: panel.unit,
        ...(kind === 'timeseries' ? { custom: { lineWidth: 1, fillOpacity: 10, showPoints: 'never' } } : {}),
      },
      overrides: [],
    },
    options:
      kind === 'stat'
        ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value' }
        : {
            legend: { displayMode: 'table', placement: 'bottom', calcs: ['mean', 'max', 'lastNotNull'] },
            tooltip: { mode: 'multi', sort: 'desc' },
          },
    targets: panel.queries.map((query, index) => ({
      refId: String.fromCharCode(65 + index),
      datasource: DATASOURCE,
      expr: query.expr,
      legendFormat: query.legend,
      range: true,
    })),
  };
}
