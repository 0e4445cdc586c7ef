import { UsageError } from '../base/index.js';
import type { CreateApiStep } from '../create-api/index.js';
import type { PhaseHandlers, ProjectFile } from '../project/index.js';
import { DEPLOY_IMAGE_PLUGIN } from './deploy-image/deploy-image-flags.js';
import type { EditStep } from './edit-step.js';

export { DEPLOY_IMAGE_PLUGIN };
export type { EditStep };

/** The command a plugin works with. */
export type PluginCommand = 'edit' | 'create api';

/** The step each command's phases share (project/command-pipeline.ts), which its plugins' handlers get. */
export interface PluginSteps {
  edit: EditStep;
  'create api': CreateApiStep;
}

/**
 * One of kop's plugins, named as Kubebuilder names it. Every plugin is the same thing: handlers of
 * its command's phases (project/command-pipeline.ts), run after the command's own in each phase.
 */
export interface KopPlugin<C extends PluginCommand = PluginCommand> {
  /** Kubebuilder's full key, under which PROJECT's `plugins:` records it. */
  key: string;
  /** Every name `--plugins` accepts for it (Kubebuilder's short and full names, kop's own). */
  names: readonly string[];
  /** One line for help and errors. */
  summary: string;
  /** The command that runs it. */
  command: C;
  /**
   * What PROJECT records for the plugin when `kop edit` first adds it (Kubebuilder's keys); a value
   * already recorded is kept, so a re-run keeps the user's configuration.
   */
  settings?: Readonly<Record<string, unknown>>;
  /**
   * The plugin's handlers for one run of its command, given the command's flags by field (a plugin
   * reads its own). Loaded on first use, so `kop --help` does not pay for the plugin's code.
   */
  phases(flags: Readonly<Record<string, unknown>>): Promise<PhaseHandlers<PluginSteps[C]>>;
}

/** A plugin of either command. */
export type AnyKopPlugin = { [C in PluginCommand]: KopPlugin<C> }[PluginCommand];

/** Kubebuilder's key of the grafana plugin. */
export const GRAFANA_PLUGIN = 'grafana.kubebuilder.io/v1-alpha';
/** Kubebuilder's key of the autoupdate plugin (a workflow that runs `alpha update` weekly). */
export const AUTOUPDATE_PLUGIN = 'autoupdate.kubebuilder.io/v1-alpha';
/** The key kop records its Helm chart under: Kubebuilder's helm plugin that writes dist/chart. */
export const HELM_PLUGIN = 'helm.kubebuilder.io/v2-alpha';

/** Every plugin kop has; each loads its code on first use, so `kop --help` does not pay for them. */
export const PLUGINS: readonly AnyKopPlugin[] = [
  {
    key: DEPLOY_IMAGE_PLUGIN,
    names: ['deploy-image/v1-alpha', DEPLOY_IMAGE_PLUGIN],
    summary: 'create api --image <ref>: a kind whose controller runs that image as a Deployment',
    command: 'create api',
    phases: async (flags) => {
      const { deployImagePhases } = await import('./deploy-image/run-deploy-image.js');
      return deployImagePhases(flags);
    },
  },
  {
    key: GRAFANA_PLUGIN,
    names: ['grafana/v1-alpha', GRAFANA_PLUGIN, 'grafana'],
    summary: "Grafana dashboards of the manager's metrics in grafana/",
    command: 'edit',
    phases: async () => {
      const { grafanaPhases } = await import('./grafana/grafana-plugin.js');
      return grafanaPhases();
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
    phases: async () => {
      const { helmPhases } = await import('./helm/helm-plugin.js');
      return helmPhases(HELM_PLUGIN);
    },
  },
  {
    key: AUTOUPDATE_PLUGIN,
    names: ['autoupdate/v1-alpha', AUTOUPDATE_PLUGIN],
    summary:
      'a GitHub Actions workflow that runs kop alpha update weekly and opens a pull request (an issue on conflicts)',
    command: 'edit',
    phases: async () => {
      const { autoUpdatePhases } = await import('./autoupdate/autoupdate-plugin.js');
      return autoUpdatePhases();
    },
  },
];

/** What PROJECT records for `plugin` after `kop edit` ran it: its settings, under what was recorded before. */
export function recordedSettings(
  plugin: Pick<KopPlugin, 'key' | 'settings'>,
  project: ProjectFile,
): Record<string, unknown> {
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
export function resolvePlugins<C extends PluginCommand>(names: readonly string[], command: C): KopPlugin<C>[] {
  if (names.length === 0) throw new UsageError('--plugins: name a plugin', `kop has: ${pluginList(command)}`);
  const resolved: KopPlugin<C>[] = [];
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
    // The plugin is one of `command`'s: checked just above.
    if (!resolved.some((known) => known.key === plugin.key)) resolved.push(plugin as KopPlugin<C>);
  }
  return resolved;
}

/** `name (summary)` of every plugin of one command, for errors and help. */
export function pluginList(command: PluginCommand): string {
  return PLUGINS.filter((plugin) => plugin.command === command)
    .map((plugin) => `${plugin.names[0]} (also ${plugin.names.slice(1).join(', ')}): ${plugin.summary}`)
    .join('; ');
}
