import { type Context, UsageError } from '../base/index.js';
import type { ProjectFile } from '../project/index.js';
import type { FlushResult, VirtualTree } from '../scaffold/index.js';

/** What an edit plugin gets: the tree every plugin of one `kop edit` stages into, and the project. */
export interface EditStep {
  tree: VirtualTree;
  project: ProjectFile;
  context: Context;
  /** `kop edit --force`: replace files the plugin otherwise keeps or merges. */
  force: boolean;
}

/** The command a plugin works with. */
export type PluginCommand = 'edit' | 'create api';

/** One of kop's plugins, named as Kubebuilder names it. */
export interface KopPlugin {
  /** Kubebuilder's full key, under which PROJECT's `plugins:` records it. */
  key: string;
  /** Every name `--plugins` accepts for it (Kubebuilder's short and full names, kop's own). */
  names: readonly string[];
  /** One line for help and errors. */
  summary: string;
  /** The command that runs it. */
  command: PluginCommand;
  /**
   * What PROJECT records for the plugin when `kop edit` first adds it (Kubebuilder's keys); a value
   * already recorded is kept, so a re-run keeps the user's configuration.
   */
  settings?: Readonly<Record<string, unknown>>;
  /**
   * `kop edit`: stages the plugin's files into `step.tree` (nothing is written until every plugin
   * staged its files). Returns what to print once the tree was applied, if anything.
   */
  edit?(step: EditStep): Promise<((result: FlushResult) => void) | void>;
}

/** Kubebuilder's key of the deploy-image plugin. */
export const DEPLOY_IMAGE_PLUGIN = 'deploy-image.go.kubebuilder.io/v1-alpha';
/** Kubebuilder's key of the grafana plugin. */
export const GRAFANA_PLUGIN = 'grafana.kubebuilder.io/v1-alpha';
/** Kubebuilder's key of the autoupdate plugin (a workflow that runs `alpha update` weekly). */
export const AUTOUPDATE_PLUGIN = 'autoupdate.kubebuilder.io/v1-alpha';
/** The key kop records its Helm chart under: Kubebuilder's helm plugin that writes dist/chart. */
export const HELM_PLUGIN = 'helm.kubebuilder.io/v2-alpha';

/**
 * Every plugin kop has. The edit plugins load their code on first use, so `kop --help` does
 * not pay for them.
 */
export const PLUGINS: readonly KopPlugin[] = [
  {
    key: DEPLOY_IMAGE_PLUGIN,
    names: ['deploy-image/v1-alpha', DEPLOY_IMAGE_PLUGIN],
    summary: 'create api --image <ref>: a kind whose controller runs that image as a Deployment',
    command: 'create api',
  },
  {
    key: GRAFANA_PLUGIN,
    names: ['grafana/v1-alpha', GRAFANA_PLUGIN, 'grafana'],
    summary: "Grafana dashboards of the manager's metrics in grafana/",
    command: 'edit',
    edit: async (step) => {
      const { stageGrafanaDashboards } = await import('./grafana/grafana-plugin.js');
      await stageGrafanaDashboards(step.tree);
    },
  },
  {
    key: HELM_PLUGIN,
    names: ['helm', 'helm/v1-alpha', 'helm.kubebuilder.io/v1-alpha', 'helm/v2-alpha', HELM_PLUGIN],
    summary: 'a Helm chart of the operator in dist/chart',
    command: 'edit',
    // Kubebuilder's keys: the installer the chart matches (kop builds both from config/default) and
    // the folder the chart goes in, as <output>/chart.
    settings: { manifests: 'dist/install.yaml', output: 'dist' },
    edit: async (step) => {
      const { stageHelmChart } = await import('../helm/index.js');
      const recorded = step.project.plugins?.[HELM_PLUGIN];
      return stageHelmChart(step.tree, step.project, { force: step.force, output: recorded?.output }, step.context);
    },
  },
  {
    key: AUTOUPDATE_PLUGIN,
    names: ['autoupdate/v1-alpha', AUTOUPDATE_PLUGIN],
    summary:
      'a GitHub Actions workflow that runs kop alpha update weekly and opens a pull request (an issue on conflicts)',
    command: 'edit',
    edit: async (step) => {
      const { stageAutoUpdateWorkflow } = await import('./autoupdate/autoupdate-plugin.js');
      return stageAutoUpdateWorkflow(step.tree, { force: step.force }, step.context);
    },
  },
];

/** What PROJECT records for `plugin` after `kop edit` ran it: its settings, under what was recorded before. */
export function recordedSettings(plugin: KopPlugin, project: ProjectFile): Record<string, unknown> {
  return { ...plugin.settings, ...project.plugins?.[plugin.key] };
}

/** `--plugins a,b` (flag given once or more) as a list of names. */
export function splitPluginNames(values: readonly string[] | string): string[] {
  return (typeof values === 'string' ? [values] : values)
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter(Boolean);
}

/**
 * The plugins `--plugins` names for `command`, each once; an unknown name, or a plugin of the
 * other command, is a usage error that lists what kop has.
 */
export function resolvePlugins(names: readonly string[], command: PluginCommand): KopPlugin[] {
  if (names.length === 0) throw new UsageError('--plugins: name a plugin', `kop has: ${pluginList(command)}`);
  const resolved: KopPlugin[] = [];
  for (const name of names) {
    const plugin = PLUGINS.find((candidate) => candidate.names.includes(name));
    if (!plugin) throw new UsageError(`--plugins: unknown plugin "${name}"`, `kop has: ${pluginList(command)}`);
    if (plugin.command !== command) {
      throw new UsageError(
        `--plugins: ${name} is a plugin of \`kop ${plugin.command}\`, not of \`kop ${command}\``,
        plugin.command === 'edit'
          ? `run \`kop edit --plugins ${name}\``
          : `run \`kop create api --plugins ${name} --image <ref> ...\``,
      );
    }
    if (!resolved.includes(plugin)) resolved.push(plugin);
  }
  return resolved;
}

/** `name (summary)` of every plugin of one command, for errors and help. */
export function pluginList(command: PluginCommand): string {
  return PLUGINS.filter((plugin) => plugin.command === command)
    .map((plugin) => `${plugin.names[0]} (also ${plugin.names.slice(1).join(', ')}): ${plugin.summary}`)
    .join('; ');
}
