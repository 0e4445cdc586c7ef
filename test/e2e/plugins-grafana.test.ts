/**
 * Every metric the grafana plugin's dashboards query is one a running kop manager exports: a
 * manager with a controller and a webhook runs against a real control plane (kop/testing), its
 * /metrics is scraped, and the metric names of every PromQL expression of the dashboards (panel
 * targets and variable queries) are looked up in what it served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONTROLLER_RESOURCES_DASHBOARD,
  CONTROLLER_RUNTIME_DASHBOARD,
} from '../../src/plugins/grafana/builtin-dashboards.js';
import { renderDashboard } from '../../src/plugins/grafana/dashboard.js';
import { Manager, silentLogger } from '../../src/runtime/index.js';
import { RestClient, loadClientConfig } from '../../src/runtime/client/index.js';
import { coreV1ConfigMapType } from '../../src/runtime/builtin/index.js';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { dashboardQueries, exportedSeriesNames, metricNamesOf } from '../helpers/promql-metrics.js';

describe('grafana dashboards against a running manager', () => {
  let plane: ControlPlane;
  let manager: Manager;
  let started: Promise<void>;
  let exposition = '';

  beforeAll(async () => {
    plane = await startControlPlane();
    const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: Infinity });
    manager = new Manager({
      rest,
      logger: silentLogger,
      metricsSecure: false,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '0',
      leaderElection: false,
    });
    manager
      .controller('configmap')
      .for(coreV1ConfigMapType)
      .complete(async () => undefined);
    started = manager.start();
    for (let i = 0; i < 200 && !manager.metricsUrl; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    // A reconcile or two, so the per-controller series exist with values, not only their families.
    await rest.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'grafana-probe' }, data: { a: 'b' } });
    for (let i = 0; i < 200; i++) {
      exposition = await (await fetch(manager.metricsUrl!)).text();
      if (/controller_runtime_reconcile_total\{[^}]*controller="configmap"[^}]*\} [1-9]/.test(exposition)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  afterAll(async () => {
    await manager?.stop();
    await started?.catch(() => undefined);
    manager?.rest.close();
    await plane?.stop();
  });

  it.each([
    { file: 'grafana/controller-runtime-metrics.json', spec: CONTROLLER_RUNTIME_DASHBOARD },
    { file: 'grafana/controller-resources-metrics.json', spec: CONTROLLER_RESOURCES_DASHBOARD },
  ])('$file queries only metrics the manager exports', ({ spec }) => {
    expect(exposition).toMatch(/controller_runtime_reconcile_total\{[^}]*controller="configmap"/);
    const exported = exportedSeriesNames(exposition);
    const queries = dashboardQueries(JSON.parse(renderDashboard(spec)));
    expect(queries.length).toBeGreaterThan(8);
    const queried = [...new Set(queries.flatMap(metricNamesOf))].sort();
    expect(queried.length).toBeGreaterThan(8);
    expect(queried.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('the series per controller carry the labels the dashboards group by', () => {
    expect(exposition).toMatch(/controller_runtime_reconcile_total\{[^}]*controller="configmap"[^}]*result="success"/);
    expect(exposition).toMatch(/workqueue_adds_total\{[^}]*controller="configmap"/);
    expect(exposition).toMatch(
      /controller_runtime_reconcile_time_seconds_bucket\{[^}]*le="[^"]+"[^}]*controller="configmap"|controller_runtime_reconcile_time_seconds_bucket\{[^}]*controller="configmap"[^}]*le=/,
    );
  });
});
