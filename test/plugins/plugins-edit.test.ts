import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/base/errors.js';
import { runInit } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { PLUGINS, resolvePlugins, splitPluginNames } from '../../src/plugins/registry.js';
import { runEdit } from '../../src/edit/run-edit-plugins.js';
import { parseCustomMetrics } from '../../src/plugins/grafana/custom-metrics.js';
import { autoUpdateWorkflow } from '../../src/plugins/autoupdate/autoupdate-plugin.js';
import { dashboardQueries, metricNamesOf } from '../helpers/promql-metrics.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { listFiles } from '../helpers/files.js';

async function snapshot(dir: string): Promise<Record<string, string>> {
  const files = await listFiles(dir);
  return Object.fromEntries(
    await Promise.all(files.map(async (file) => [file, await readFile(path.join(dir, file), 'utf8')] as const)),
  );
}

describe('plugin names', () => {
  it.each([
    { given: 'deploy-image/v1-alpha', command: 'create api', want: 'deploy-image.go.kubebuilder.io/v1-alpha' },
    {
      given: 'deploy-image.go.kubebuilder.io/v1-alpha',
      command: 'create api',
      want: 'deploy-image.go.kubebuilder.io/v1-alpha',
    },
    { given: 'grafana.kubebuilder.io/v1-alpha', command: 'edit', want: 'grafana.kubebuilder.io/v1-alpha' },
    { given: 'grafana/v1-alpha', command: 'edit', want: 'grafana.kubebuilder.io/v1-alpha' },
    { given: 'helm', command: 'edit', want: 'helm.kubebuilder.io/v2-alpha' },
    { given: 'helm.kubebuilder.io/v1-alpha', command: 'edit', want: 'helm.kubebuilder.io/v2-alpha' },
    { given: 'helm.kubebuilder.io/v2-alpha', command: 'edit', want: 'helm.kubebuilder.io/v2-alpha' },
    { given: 'helm/v2-alpha', command: 'edit', want: 'helm.kubebuilder.io/v2-alpha' },
    { given: 'autoupdate/v1-alpha', command: 'edit', want: 'autoupdate.kubebuilder.io/v1-alpha' },
    { given: 'autoupdate.kubebuilder.io/v1-alpha', command: 'edit', want: 'autoupdate.kubebuilder.io/v1-alpha' },
  ] as const)('$given resolves to $want', ({ given, command, want }) => {
    expect(resolvePlugins([given], command).map((plugin) => plugin.key)).toEqual([want]);
  });

  it('splits comma lists, drops blanks and repeats', () => {
    expect(splitPluginNames(['helm, grafana/v1-alpha', ' ,helm/v2-alpha'])).toEqual([
      'helm',
      'grafana/v1-alpha',
      'helm/v2-alpha',
    ]);
    expect(resolvePlugins(splitPluginNames('helm,helm/v2-alpha'), 'edit')).toHaveLength(1);
  });

  it('refuses unknown plugins and plugins of the other command, listing what kop has', () => {
    expect(() => resolvePlugins(['go/v5'], 'edit')).toThrow(UsageError);
    expect(() => resolvePlugins(['go/v5'], 'edit')).toThrow('--plugins: unknown plugin "go/v5"');
    try {
      resolvePlugins(['nope'], 'edit');
    } catch (error) {
      expect((error as UsageError).hint).toContain('grafana/v1-alpha');
      expect((error as UsageError).hint).toContain('helm');
    }
    expect(() => resolvePlugins(['deploy-image/v1-alpha'], 'edit')).toThrow(/is a plugin of `kop create api`/);
    expect(() => resolvePlugins(['helm'], 'create api')).toThrow(/is a plugin of `kop edit`/);
    expect(() => resolvePlugins([], 'edit')).toThrow('--plugins: name a plugin');
  });

  it('every name belongs to one plugin', () => {
    const names = PLUGINS.flatMap((plugin) => plugin.names);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('kop edit --plugins autoupdate.kubebuilder.io/v1-alpha', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');
  const workflow = '.github/workflows/auto_update.yml';

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('demo'));
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'The demo authors',
        license: 'apache2',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      testContext({ cwd: dir }),
    );
  });
  afterEach(() => cleanup());

  it('writes the workflow, records the plugin in PROJECT, and says what to set up', async () => {
    const context = testContext({ cwd: dir });
    const result = await runEdit({ plugins: ['autoupdate.kubebuilder.io/v1-alpha'] }, context);
    expect(
      result.changes
        .filter((change) => change.action !== 'unchanged')
        .map((change) => `${change.action} ${change.path}`),
    ).toEqual(['create .github/workflows/auto_update.yml', 'update PROJECT'].sort());
    expect(await read(workflow)).toBe(await autoUpdateWorkflow());
    expect(parseProjectFile(await read('PROJECT')).plugins).toEqual({ 'autoupdate.kubebuilder.io/v1-alpha': {} });
    expect(context.out.lines.join('\n')).toContain('repository variable KOP_PACKAGE');
  });

  it("keeps your edits to the workflow on a later run, and --force writes kop's again", async () => {
    await runEdit({ plugins: ['autoupdate/v1-alpha'] }, testContext({ cwd: dir }));
    const mine = (await read(workflow)).replace("cron: '0 0 * * 2'", "cron: '0 6 * * 1'");
    await writeFile(path.join(dir, workflow), mine);
    const again = await runEdit({ plugins: ['autoupdate/v1-alpha'] }, testContext({ cwd: dir }));
    expect(again.changes.filter((change) => change.action !== 'unchanged' && change.action !== 'skip')).toEqual([]);
    expect(await read(workflow)).toBe(mine);
    await runEdit({ plugins: ['autoupdate/v1-alpha'], force: true }, testContext({ cwd: dir }));
    expect(await read(workflow)).toBe(await autoUpdateWorkflow());
  });

  it('with another plugin in the same run, nothing is written when that one fails', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(path.join(dir, 'grafana/custom-metrics'), { recursive: true });
    await writeFile(
      path.join(dir, 'grafana/custom-metrics/config.yaml'),
      'customMetrics:\n  - metric: 9bad\n    type: counter\n',
    );
    const before = await snapshot(dir);
    await expect(
      runEdit({ plugins: ['autoupdate/v1-alpha,grafana/v1-alpha'] }, testContext({ cwd: dir })),
    ).rejects.toThrow('metric "9bad" is not a Prometheus metric name');
    expect(await snapshot(dir)).toEqual(before);
  });
});

describe('kop edit --plugins grafana.kubebuilder.io/v1-alpha', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('demo'));
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'The demo authors',
        license: 'apache2',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      testContext({ cwd: dir }),
    );
  });
  afterEach(() => cleanup());

  it('writes the dashboards and the custom-metrics list, and records the plugin in PROJECT', async () => {
    const result = await runEdit({ plugins: ['grafana.kubebuilder.io/v1-alpha'] }, testContext({ cwd: dir }));
    expect(result.changes.map((change) => `${change.action} ${change.path}`)).toEqual([
      'update PROJECT',
      'create grafana/controller-resources-metrics.json',
      'create grafana/controller-runtime-metrics.json',
      'create grafana/custom-metrics/config.yaml',
    ]);
    const project = parseProjectFile(await read('PROJECT'));
    expect(project.plugins).toEqual({ 'grafana.kubebuilder.io/v1-alpha': {} });
    expect(await read('PROJECT')).toContain('plugins:\n  grafana.kubebuilder.io/v1-alpha: {}\n');

    const runtime = JSON.parse(await read('grafana/controller-runtime-metrics.json')) as {
      panels: { title: string }[];
      description: string;
    };
    expect(runtime.description).toContain('Code generated by kop. DO NOT EDIT.');
    const queried = dashboardQueries(runtime).flatMap(metricNamesOf);
    expect(queried).toEqual(
      expect.arrayContaining([
        'controller_runtime_reconcile_total',
        'controller_runtime_reconcile_time_seconds_bucket',
        'workqueue_depth',
        'workqueue_adds_total',
        'rest_client_requests_total',
        'rest_client_request_duration_seconds_bucket',
        'rest_client_rate_limiter_duration_seconds_bucket',
        'rest_client_request_retries_total',
      ]),
    );

    // A second run changes nothing.
    const again = await runEdit({ plugins: ['grafana/v1-alpha'] }, testContext({ cwd: dir }));
    expect(again.changes.filter((change) => change.action !== 'unchanged' && change.action !== 'skip')).toEqual([]);
  });

  it('adds a dashboard of the metrics listed in config.yaml on the next run, and removes it when the list is emptied', async () => {
    await runEdit({ plugins: ['grafana/v1-alpha'] }, testContext({ cwd: dir }));
    const config = await read('grafana/custom-metrics/config.yaml');
    const listed = config.replace(
      'customMetrics: []',
      'customMetrics:\n  - metric: memcached_deployments_created_total\n    type: counter\n  - metric: memcached_size\n    type: gauge\n    unit: short\n  - metric: memcached_sync_seconds\n    type: histogram\n  - metric: memcached_ratio\n    type: gauge\n    expr: avg(memcached_ratio)\n',
    );
    await writeFile(path.join(dir, 'grafana/custom-metrics/config.yaml'), listed);
    await runEdit({ plugins: ['grafana.kubebuilder.io/v1-alpha'] }, testContext({ cwd: dir }));
    const custom = JSON.parse(await read('grafana/custom-metrics/custom-metrics-dashboard.json')) as {
      panels: {
        type: string;
        title: string;
        targets?: { expr: string }[];
        fieldConfig?: { defaults: { unit: string } };
      }[];
    };
    const panels = custom.panels.filter((panel) => panel.type !== 'row');
    expect(panels.map((panel) => [panel.title, panel.targets![0]!.expr, panel.fieldConfig!.defaults.unit])).toEqual([
      [
        'memcached_deployments_created_total',
        'sum by (instance) (rate(memcached_deployments_created_total{job=~"$job", instance=~"$instance"}[$__rate_interval]))',
        'none',
      ],
      ['memcached_size', 'sum by (instance) (memcached_size{job=~"$job", instance=~"$instance"})', 'short'],
      [
        'memcached_sync_seconds',
        'histogram_quantile(0.99, sum by (instance, le) (rate(memcached_sync_seconds_bucket{job=~"$job", instance=~"$instance"}[$__rate_interval])))',
        'none',
      ],
      ['memcached_ratio', 'avg(memcached_ratio)', 'none'],
    ]);
    // The user's list is kept.
    expect(await read('grafana/custom-metrics/config.yaml')).toBe(listed);

    await writeFile(path.join(dir, 'grafana/custom-metrics/config.yaml'), config);
    await runEdit({ plugins: ['grafana.kubebuilder.io/v1-alpha'] }, testContext({ cwd: dir }));
    await expect(read('grafana/custom-metrics/custom-metrics-dashboard.json')).rejects.toThrow(/ENOENT/);
  });

  it('a bad custom-metrics list or an unknown plugin writes nothing', async () => {
    await runEdit({ plugins: ['grafana/v1-alpha'] }, testContext({ cwd: dir }));
    await writeFile(
      path.join(dir, 'grafana/custom-metrics/config.yaml'),
      'customMetrics:\n  - metric: 9bad\n    type: counter\n',
    );
    const before = await snapshot(dir);
    await expect(runEdit({ plugins: ['grafana/v1-alpha'] }, testContext({ cwd: dir }))).rejects.toThrow(
      'grafana/custom-metrics/config.yaml: customMetrics[0]: metric "9bad" is not a Prometheus metric name',
    );
    await expect(runEdit({ plugins: ['helm,grafana/v2'] }, testContext({ cwd: dir }))).rejects.toThrow(
      '--plugins: unknown plugin "grafana/v2"',
    );
    expect(await snapshot(dir)).toEqual(before);
  });

  it.each([
    {
      given: 'customMetrics:\n  - metric: a\n    type: summary\n',
      want: 'type must be one of counter, gauge, histogram',
    },
    { given: 'customMetrics:\n  - metric: a\n    type: gauge\n    colour: red\n', want: 'unknown key "colour"' },
    { given: 'customMetrics: {}\n', want: 'customMetrics must be a list' },
    {
      given: 'customMetrics:\n  - metric: a\n    type: gauge\n    unit: "s; rm"\n',
      want: 'unit must be a Grafana unit id',
    },
  ])('config $given is refused: $want', ({ given, want }) => {
    expect(() => parseCustomMetrics(given)).toThrow(want);
  });
});

describe('metric names of PromQL', () => {
  it.each([
    {
      given: 'sum by (controller, result) (rate(controller_runtime_reconcile_total{job=~"$job"}[$__rate_interval]))',
      want: ['controller_runtime_reconcile_total'],
    },
    { given: 'histogram_quantile(0.99, sum by (le) (rate(x_seconds_bucket[5m])))', want: ['x_seconds_bucket'] },
    { given: 'time() - process_start_time_seconds{instance=~"$instance"}', want: ['process_start_time_seconds'] },
    {
      given: 'label_values(controller_runtime_reconcile_total{job=~"$job"}, controller)',
      want: ['controller_runtime_reconcile_total'],
    },
    { given: 'a / on(instance) group_left b and c offset 5m', want: ['a', 'b', 'c'] },
    { given: '1e3 * avg(y)', want: ['y'] },
  ])('$given', ({ given, want }) => {
    expect(metricNamesOf(given)).toEqual(want);
  });
});

describe("PROJECT's plugins key", () => {
  const base =
    'version: "1"\nlayout:\n  - kop.dev/typescript/v1\ndomain: example.com\nprojectName: demo\nresources: []\n';
  const resource =
    '      - { domain: example.com, group: cache, version: v1alpha1, kind: Memcached, options: { image: "memcached:1.6" } }\n';

  it('reads what the plugins record, and writes it back in a stable order', async () => {
    const text = `${base}plugins:\n  helm.kubebuilder.io/v2-alpha: {}\n  deploy-image.go.kubebuilder.io/v1-alpha:\n    resources:\n${resource}`;
    const project = parseProjectFile(text);
    expect(project.plugins).toEqual({
      'helm.kubebuilder.io/v2-alpha': {},
      'deploy-image.go.kubebuilder.io/v1-alpha': {
        resources: [
          {
            domain: 'example.com',
            group: 'cache',
            version: 'v1alpha1',
            kind: 'Memcached',
            options: { image: 'memcached:1.6' },
          },
        ],
      },
    });
    const { formatProjectFile } = await import('../../src/project/project-file.js');
    const written = formatProjectFile(project);
    expect(written.indexOf('deploy-image.go.kubebuilder.io/v1-alpha')).toBeLessThan(
      written.indexOf('helm.kubebuilder.io/v2-alpha'),
    );
    expect(parseProjectFile(written)).toEqual(project);
  });

  it.each([
    { given: 'plugins: [helm]\n', want: /PROJECT:\d+: plugins: must be a mapping of plugin key/ },
    {
      given: 'plugins:\n  grafana.kubebuilder.io/v1-alpha: yes\n',
      want: /plugins\.grafana\.kubebuilder\.io\/v1-alpha: must be a mapping/,
    },
    {
      given: 'plugins:\n  deploy-image.go.kubebuilder.io/v1-alpha: {}\n',
      want: /resources: must be a list of the kinds the plugin scaffolded/,
    },
    {
      given: `plugins:\n  deploy-image.go.kubebuilder.io/v1-alpha:\n    resources:\n${resource.replace('image: "memcached:1.6"', 'image: "x", port: "1"')}`,
      want: /unknown key "port"/,
    },
    {
      given: `plugins:\n  deploy-image.go.kubebuilder.io/v1-alpha:\n    resources:\n${resource.replace('kind: Memcached', 'kind: memcached')}`,
      want: /kind: invalid kind "memcached"/,
    },
    {
      given: `plugins:\n  deploy-image.go.kubebuilder.io/v1-alpha:\n    resources:\n${resource.replace('image: "memcached:1.6"', 'runAsUser: 1001')}`,
      want: /runAsUser: must be a string/,
    },
  ])('refuses $given', ({ given, want }) => {
    expect(() => parseProjectFile(base + given)).toThrow(want);
  });
});
