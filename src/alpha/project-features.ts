/**
 * How a project is rebuilt from its PROJECT file: one entry per feature PROJECT records, each
 * turning what is recorded into the kop commands that made it. `kop alpha generate` runs them
 * in-process with this kop; `kop alpha update` also runs them with the kop that scaffolded the
 * project (its `alpha generate`, or their command lines for a kop without one).
 *
 * Extension point: a new PROJECT key that a command flag records is the `recorded` reader of
 * that flag's one declaration (create-api/create-api-flags.ts, create-webhook/create-webhook-flags.ts,
 * plugins/deploy-image/deploy-image-flags.ts): its options and command line here follow from
 * it. A new command goes into a new entry of {@link PROJECT_FEATURES} at the
 * place in the order where that command can run. A plugin file that is the user's (read by the
 * plugin, as grafana's custom-metrics list) goes into {@link PLUGIN_USER_FILES}, so the replay
 * copies it before the plugin runs.
 */
import * as path from 'node:path';
import type { Context } from '../base/index.js';
import type { GeneratorEntry } from '../generate/index.js';
import {
  fullGroup,
  loadProjectFile,
  saveProjectFile,
  type ProjectFile,
  type ProjectResource,
  controllersOf,
  originOf,
  singularOf,
} from '../project/index.js';
import { GRAFANA_PLUGIN, PLUGINS, CUSTOM_METRICS_CONFIG, type CreateApiWithPluginsOptions } from '../plugins/index.js';
import { isCrdSource } from '../import/index.js';
import { BOILERPLATE_FILE, VirtualTree } from '../scaffold/index.js';
import type { CreateApiOptions } from '../create-api/index.js';
import { CREATE_API_FLAGS } from '../create-api/create-api-flags.js';
import type { CreateWebhookOptions } from '../create-webhook/index.js';
import { CREATE_WEBHOOK_FLAGS } from '../create-webhook/create-webhook-flags.js';
import { recordedOptions, replayArgv, type RecordedSource } from '../project/command-flags.js';
import { CREATE_API_PLUGIN_FLAGS } from '../plugins/deploy-image/deploy-image-flags.js';
import type { InitOptions } from '../init/index.js';
import { INIT_FLAGS } from '../init/init-flags.js';

/** One step of the replay: a kop command, or a copy of files no command can make again. */
export interface ReplayStep {
  /** Shown in the plan and in errors, e.g. `create api --group cache --version v1 --kind Memcached`. */
  title: string;
  /**
   * The kop command line (without `kop`) that does this step, for a kop that has no
   * `alpha generate`; undefined for steps that are not a command (copies).
   */
  argv?: string[];
  /** Does the step in-process in the project folder of `context.cwd`. */
  run(context: Context): Promise<void>;
  /**
   * A step whose failure leaves the rebuilt project usable (generate, plugins): it is reported
   * and the replay goes on. Other steps stop the replay.
   */
  optional?: boolean;
  /** Something the user should know about how the step rebuilds its part (printed as a warning). */
  note?: string;
}

/** What the features read: the recorded project and the files of the project it comes from. */
export interface ReplayInput {
  project: ProjectFile;
  /** Reads a file of the input project, undefined when absent. */
  read: (file: string) => Promise<string | undefined>;
  /** The files under a folder of the input project (project-relative), empty when there is none; without it, folders are not copied. */
  list?: (dir: string) => Promise<string[]>;
  /** The kop dependency spec for `init --kop-source`; undefined lets init choose (it packs this kop). */
  kopSource?: string;
  /** The generators of `kop generate`; the generate step is left out without them. */
  generators?: readonly GeneratorEntry[];
}

/** One feature of PROJECT and the steps that rebuild it. */
export interface ProjectFeature {
  name: string;
  steps(input: ReplayInput): Promise<ReplayStep[]>;
}

/** Owner and license as `kop init` wrote them into hack/boilerplate.txt, and its year. */
export interface Boilerplate {
  owner?: string;
  license: 'apache2' | 'none';
  year?: number;
}

/** Reads `Copyright <year> <owner>.` and the SPDX line back from hack/boilerplate.txt (PROJECT does not record them). */
export function parseBoilerplate(text: string | undefined): Boilerplate {
  if (text === undefined) return { license: 'apache2' };
  const copyright = /^Copyright (\d{4}) (.+?)\.?\s*$/m.exec(text);
  return {
    owner: copyright?.[2],
    year: copyright ? Number(copyright[1]) : undefined,
    license: /SPDX-License-Identifier: Apache-2\.0/.test(text) ? 'apache2' : 'none',
  };
}

/** `kop init`'s options for a recorded project: its recorded flags (init/init-flags.ts), the replay's kop source, no install. */
export function initOptions(
  project: ProjectFile,
  boilerplate: Boilerplate,
  kopSource: string | undefined,
): InitOptions {
  return { ...recordedOptions(INIT_FLAGS, { project, boilerplate }), kopSource, skipInstall: true };
}

const initFeature: ProjectFeature = {
  name: 'init',
  async steps({ project, read, kopSource }) {
    const options = initOptions(project, parseBoilerplate(await read(BOILERPLATE_FILE)), kopSource);
    return [
      {
        title: 'init',
        argv: replayArgv(['init'], INIT_FLAGS, options),
        run: async (context) => {
          const { runInit } = await import('../init/index.js');
          await runInit(options, context);
        },
      },
    ];
  },
};

/**
 * True for an own kind whose types came from `kop import crd --own` (another domain, or a types
 * file with the import's banner): no command makes them again from PROJECT, since PROJECT
 * does not record the CRD they came from, so their files are copied from the input project.
 */
async function isImported(
  resource: ProjectResource,
  project: ProjectFile,
  read: ReplayInput['read'],
): Promise<boolean> {
  if (resource.domain !== project.domain) return true;
  const types = resource.path === undefined ? undefined : await read(resource.path);
  return types !== undefined && types.includes('imported by `kop import crd`');
}

/**
 * How a kind of PROJECT is rebuilt, from where it comes from (project/resource-model.ts's origin):
 * - `builtin`: its reconcilers and webhooks by their commands, nothing to copy;
 * - `replay-external`: a kind the --external-api-* flags brought (a module of an npm package, or
 *   an imported kind whose `module` can be imported again): `create api` with the same flags,
 *   after the CRD file the module names is copied (when it is one of the project);
 * - `copy`: types no command makes again (`kop import crd`, a CRD module outside the project,
 *   or an own kind with the import's banner or another domain): copied;
 * - `own`: a kind of this project, by create api.
 */
type Rebuild = 'builtin' | 'replay-external' | 'copy' | 'own';

/** A module path (CRD file or folder) as a project-relative path, or undefined when it lies outside the project. */
function moduleInProject(module: string): string | undefined {
  if (path.posix.isAbsolute(module) || path.win32.isAbsolute(module)) return undefined;
  const normalized = path.posix.normalize(module).replace(/\/+$/, '');
  return normalized === '..' || normalized.startsWith('../') || normalized === '.' ? undefined : normalized;
}

/** The files of a CRD module in the input project (one file, or the files under a folder); empty when it is not there. */
async function moduleFiles(module: string, input: ReplayInput): Promise<string[]> {
  const inProject = moduleInProject(module);
  if (inProject === undefined) return [];
  if ((await input.read(inProject)) !== undefined) return [inProject];
  return input.list ? input.list(inProject) : [];
}

/** Why a kind's CRD module cannot be replayed with `create api --external-api-module`, or undefined when it can. */
async function moduleProblem(
  resource: ProjectResource,
  project: ProjectFile,
  input: ReplayInput,
): Promise<string | undefined> {
  const module = resource.module!;
  if (!isCrdSource(module)) return undefined;
  // The module was imported by a create api that scaffolded a reconciler: one of its kinds has one.
  if (!project.resources.some((r) => r.module === module && controllersOf(r).length > 0))
    return `no kind of ${module} has a reconciler`;
  if (moduleInProject(module) === undefined) return `${module} is outside the project`;
  if ((await moduleFiles(module, input)).length === 0) return `${module} is not in the project`;
  return undefined;
}

async function rebuildOf(resource: ProjectResource, project: ProjectFile, input: ReplayInput): Promise<Rebuild> {
  const origin = originOf(resource);
  switch (origin.type) {
    case 'builtin':
      return 'builtin';
    case 'package':
      return 'replay-external';
    case 'imported':
      return origin.module !== undefined && (await moduleProblem(resource, project, input)) === undefined
        ? 'replay-external'
        : 'copy';
    case 'own':
      return (await isImported(resource, project, input.read)) ? 'copy' : 'own';
  }
}

const importedFeature: ProjectFeature = {
  name: 'imported kinds (copied)',
  async steps(input) {
    const { project, read } = input;
    const steps: ReplayStep[] = [];
    for (const resource of project.resources) {
      if ((await rebuildOf(resource, project, input)) !== 'copy' || resource.path === undefined) continue;
      const files = [resource.path, `${resource.path.replace(/\/[^/]+$/, '')}/groupversion.ts`];
      const problem = resource.module === undefined ? undefined : await moduleProblem(resource, project, input);
      steps.push({
        title: `copy ${resource.kind} ${fullGroup(resource)}/${resource.version} (imported with kop import crd): ${files.join(', ')}`,
        ...(problem === undefined
          ? {}
          : {
              note: `${resource.kind} ${fullGroup(resource)}/${resource.version}: its --external-api-module ${resource.module} cannot be imported again (${problem}), so its imported types are copied; put the CRD file in the project to have it imported again`,
            }),
        run: async (context) => {
          const tree = new VirtualTree(context.cwd);
          for (const file of files) {
            const content = await read(file);
            if (content !== undefined) tree.write(file, content, { kind: 'scaffolded' });
          }
          const rebuilt = await loadProjectFile(tree);
          const { controller: _controller, controllers: _controllers, webhooks: _webhooks, ...entry } = resource;
          rebuilt.resources.push(entry);
          saveProjectFile(tree, rebuilt);
          await tree.flush();
        },
      });
    }
    return steps;
  },
};

/**
 * The reconcilers of a kind in the order they are replayed, each as `--controller-name` takes it
 * (undefined for the unnamed one). create api records the unnamed reconciler as `controller: true`,
 * and as the entry named after the kind once a named one joins it; a lone `controllers: [{name: <kind>}]`
 * came from `--controller-name <kind>` itself.
 */
export function controllerNamesToReplay(resource: ProjectResource, multigroup = false): (string | undefined)[] {
  const kindLower = singularOf(resource.kind);
  const names = controllersOf(resource).map((controller) => controller.name);
  if (names.length === 1 && resource.controller !== true && (resource.controllers ?? []).length === 1) return names;
  // The unnamed reconciler's name: the lower-case kind, or `<group>-<kind>` in a multigroup layout.
  const unnamed = new Set([kindLower, ...(multigroup ? [`${resource.group.replace(/\./g, '-')}-${kindLower}`] : [])]);
  return names.map((name) => (unnamed.has(name) ? undefined : name));
}

/** What the flag tables read a PROJECT entry's recorded flags from. */
function recordedSource(resource: ProjectResource, project: ProjectFile): RecordedSource {
  return { resource, project, controllers: controllerNamesToReplay(resource, project.multigroup === true) };
}

/** `create api`'s options for one PROJECT entry: its first run, from the recorded flags of {@link CREATE_API_FLAGS}. */
export function createApiOptions(resource: ProjectResource, project: ProjectFile): CreateApiOptions {
  return recordedOptions(CREATE_API_FLAGS, recordedSource(resource, project));
}

/** A `create api` step; with `--plugins` (deploy-image), create api with its plugins. */
function createApiStep(options: CreateApiWithPluginsOptions): ReplayStep {
  const argv = replayArgv(['create', 'api'], [...CREATE_API_FLAGS, ...CREATE_API_PLUGIN_FLAGS], options);
  return {
    title: argv.join(' '),
    argv,
    run: async (context) => {
      const { runCreateApiWithPlugins } = await import('../plugins/index.js');
      await runCreateApiWithPlugins(options, context);
    },
  };
}

/** Copies the CRD files of a module into the rebuilt project, as the user had them, for `--external-api-module` to import. */
function copyModuleStep(module: string, files: string[], read: ReplayInput['read']): ReplayStep {
  return {
    title: `copy ${module} (the CRD that --external-api-module imports)`,
    run: async (context) => {
      const tree = new VirtualTree(context.cwd);
      for (const file of files) {
        const content = await read(file);
        if (content !== undefined) tree.write(file, content, { kind: 'scaffolded' });
      }
      await tree.flush();
    },
  };
}

const apiFeature: ProjectFeature = {
  name: 'create api',
  async steps(input) {
    const { project, read } = input;
    const steps: ReplayStep[] = [];
    const importedModules = new Set<string>();
    for (const resource of project.resources) {
      const origin = await rebuildOf(resource, project, input);
      const multigroup = project.multigroup === true;
      const options = createApiOptions(resource, project);
      const [, ...others] = controllerNamesToReplay(resource, multigroup);
      const gvk = { group: resource.group, version: resource.version, kind: resource.kind };
      // A reconciler of the kind without its types: `create api --no-resource --controller [--controller-name <name>]`.
      const controllerOnly = (name: string | undefined, extra: Partial<CreateApiOptions> = {}) =>
        createApiStep({
          ...gvk,
          resource: false,
          controller: true,
          ...(name === undefined ? {} : { controllerName: name }),
          ...extra,
        });
      // Each further reconciler of the kind.
      const more = (extra: Partial<CreateApiOptions> = {}) => others.map((name) => controllerOnly(name, extra));
      if (origin === 'builtin') {
        // A built-in kind: reconcilers only (its types are kop/api's).
        if (!options.controller) continue;
        steps.push(controllerOnly(options.controllerName), ...more());
        continue;
      }
      if (origin === 'replay-external') {
        const module = resource.module;
        const crd = module !== undefined && isCrdSource(module);
        if (crd && importedModules.has(module!)) {
          // Imported with the module's first kind: its reconcilers find the kind among the imported ones.
          if (options.controller)
            steps.push(controllerOnly(options.controllerName, { plural: resource.plural }), ...more());
          continue;
        }
        if (!options.controller) continue;
        const external: Partial<CreateApiOptions> = {
          externalApiPath: crd ? path.posix.dirname(resource.path!) : resource.path,
          ...(resource.domain !== project.domain ? { externalApiDomain: resource.domain } : {}),
          ...(module === undefined ? {} : { externalApiModule: module }),
        };
        if (crd) {
          importedModules.add(module!);
          steps.push(copyModuleStep(module!, await moduleFiles(module!, input), read));
        }
        steps.push(controllerOnly(options.controllerName, { plural: resource.plural, ...external }));
        steps.push(...more(crd ? {} : external));
        continue;
      }
      if (origin === 'copy') {
        // The types are copied; reconcilers for them are still scaffolded by create api.
        if (!options.controller) continue;
        options.resource = false;
        options.namespaced = undefined;
        delete options.ssa;
        steps.push(createApiStep(options), ...more());
        continue;
      }
      if (!options.resource && !options.controller) continue;
      // A deploy-image kind: its types and controller come from the plugin, as it first ran (its recorded flags).
      const plugins = recordedOptions(CREATE_API_PLUGIN_FLAGS, recordedSource(resource, project));
      steps.push(createApiStep({ ...options, ...plugins }), ...more());
      continue;
    }
    return steps;
  },
};

/** `create webhook`'s options for one PROJECT entry (the recorded flags of {@link CREATE_WEBHOOK_FLAGS}), or undefined when it records no webhook. */
export function createWebhookOptions(
  resource: ProjectResource,
  project: ProjectFile,
): CreateWebhookOptions | undefined {
  const webhooks = resource.webhooks;
  if (!webhooks || !(webhooks.defaulting || webhooks.validation || webhooks.conversion)) return undefined;
  return recordedOptions(CREATE_WEBHOOK_FLAGS, recordedSource(resource, project));
}

const webhookFeature: ProjectFeature = {
  name: 'create webhook',
  async steps({ project }) {
    const steps: ReplayStep[] = [];
    for (const resource of project.resources) {
      const options = createWebhookOptions(resource, project);
      if (options === undefined) continue;
      const argv = replayArgv(['create', 'webhook'], CREATE_WEBHOOK_FLAGS, options);
      steps.push({
        title: argv.join(' '),
        argv,
        run: async (context) => {
          const { runCreateWebhook } = await import('../create-webhook/index.js');
          await runCreateWebhook(options, context);
        },
      });
    }
    return steps;
  },
};

const generateFeature: ProjectFeature = {
  name: 'generate',
  async steps({ project, generators }) {
    if (generators === undefined) return [];
    // The project's CRD settings first, so the generate step writes the CRDs the input project has.
    const { maxDescriptionLength: cap, allowDangerousTypes, generateEmbeddedObjectMeta } = project.crd ?? {};
    const argv = [
      ...(cap === undefined ? [] : ['--max-description-length', String(cap)]),
      ...(allowDangerousTypes === true ? ['--allow-dangerous-types'] : []),
      ...(generateEmbeddedObjectMeta === true ? ['--generate-embedded-object-meta'] : []),
    ];
    const settings: ReplayStep[] =
      argv.length === 0
        ? []
        : [
            {
              title: `edit ${argv.join(' ')}`,
              argv: ['edit', ...argv],
              run: async (context) => {
                const { runEditProject } = await import('../edit/index.js');
                await runEditProject(
                  {
                    maxDescriptionLength: cap,
                    allowDangerousTypes: allowDangerousTypes === true ? true : undefined,
                    generateEmbeddedObjectMeta: generateEmbeddedObjectMeta === true ? true : undefined,
                  },
                  context,
                );
              },
            },
          ];
    return [
      ...settings,
      {
        title: 'generate',
        argv: ['generate'],
        optional: true,
        run: async (context) => {
          const { runGenerate } = await import('../generate/index.js');
          await runGenerate({ check: false, generators }, context);
        },
      },
    ];
  },
};

/** The plugins a project uses: PROJECT's `plugins` when recorded, else helm when dist/chart/Chart.yaml exists. */
async function pluginsOf(project: ProjectFile, read: ReplayInput['read']): Promise<string[]> {
  const recorded = (project as { plugins?: unknown }).plugins;
  if (Array.isArray(recorded)) return recorded.filter((plugin): plugin is string => typeof plugin === 'string');
  if (recorded !== null && typeof recorded === 'object') return Object.keys(recorded);
  return (await read('dist/chart/Chart.yaml')) !== undefined ? ['helm'] : [];
}

/**
 * Files of an edit plugin that are the user's (scaffolded once, then edited), by the plugin's key:
 * copied from the input project before the plugin runs, so it keeps them and builds on them
 * (grafana's custom-metrics list makes the custom dashboard).
 */
const PLUGIN_USER_FILES: Readonly<Record<string, readonly string[]>> = {
  [GRAFANA_PLUGIN]: [CUSTOM_METRICS_CONFIG],
};

const pluginsFeature: ProjectFeature = {
  name: 'edit --plugins',
  async steps({ project, read }) {
    // The edit plugins (helm, grafana, autoupdate), each by the key PROJECT has it under;
    // create api's plugins (deploy-image) replay with their kinds.
    const editPlugins = PLUGINS.filter((plugin) => plugin.command === 'edit');
    const plugins = (await pluginsOf(project, read)).filter((plugin) =>
      editPlugins.some((candidate) => candidate.names.includes(plugin)),
    );
    const steps: ReplayStep[] = [];
    for (const plugin of plugins) {
      const key = editPlugins.find((candidate) => candidate.names.includes(plugin))!.key;
      const userFiles: [string, string][] = [];
      for (const file of PLUGIN_USER_FILES[key] ?? []) {
        const content = await read(file);
        if (content !== undefined) userFiles.push([file, content]);
      }
      if (userFiles.length > 0) {
        steps.push({
          title: `copy ${userFiles.map(([file]) => file).join(', ')} (yours, for edit --plugins ${plugin})`,
          run: async (context) => {
            const tree = new VirtualTree(context.cwd);
            for (const [file, content] of userFiles) tree.write(file, content, { kind: 'scaffolded' });
            await tree.flush();
          },
        });
      }
      // What PROJECT records for the plugin (helm's `output`, the folder of its chart) is its
      // configuration, and no flag of `kop edit` sets it: it goes into the rebuilt PROJECT before
      // the plugin runs, which keeps it (a step of its own, done in-process for an older kop too).
      const settings = (project.plugins as Record<string, unknown> | undefined)?.[plugin];
      if (settings !== null && typeof settings === 'object' && Object.keys(settings).length > 0) {
        const recorded = settings as Record<string, unknown>;
        steps.push({
          title: `record ${key} in PROJECT: ${Object.entries(recorded)
            .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
            .join(', ')}`,
          run: async (context) => {
            const tree = new VirtualTree(context.cwd);
            const rebuilt = await loadProjectFile(tree);
            rebuilt.plugins = { ...rebuilt.plugins, [key]: { ...rebuilt.plugins?.[key], ...recorded } };
            saveProjectFile(tree, rebuilt);
            await tree.flush();
          },
        });
      }
      steps.push({
        title: `edit --plugins ${plugin}`,
        argv: ['edit', '--plugins', plugin],
        // The chart is built with kubectl kustomize from config/: without kubectl, the project is still whole.
        optional: true,
        run: async (context) => {
          const { runEdit } = await import('../edit/index.js');
          await runEdit({ plugins: [plugin] }, context);
        },
      });
    }
    return steps;
  },
};

/** The features in the order their commands can run: a kind before its webhooks, generated CRDs before a chart of them. */
export const PROJECT_FEATURES: readonly ProjectFeature[] = [
  initFeature,
  importedFeature,
  apiFeature,
  webhookFeature,
  generateFeature,
  pluginsFeature,
];

/** Every step that rebuilds the project `input` describes. */
export async function replaySteps(
  input: ReplayInput,
  features: readonly ProjectFeature[] = PROJECT_FEATURES,
): Promise<ReplayStep[]> {
  const steps: ReplayStep[] = [];
  for (const feature of features) steps.push(...(await feature.steps(input)));
  return steps;
}
