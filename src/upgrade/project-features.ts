/**
 * How a project is rebuilt from its PROJECT file: one entry per feature PROJECT records, each
 * turning what is recorded into the kop commands that made it. `kop alpha generate` runs them
 * in-process with this kop; `kop alpha update` also runs them with the kop that scaffolded the
 * project (its `alpha generate`, or their command lines for a kop without one).
 *
 * Extension point: a new PROJECT key (a command flag that is recorded) goes into the entry of
 * the command that records it (e.g. a create api flag into `createApiOptions` and
 * `createApiArgv`), or, for a new command, into a new entry of {@link PROJECT_FEATURES} at the
 * place in the order where that command can run.
 */
import type { Context } from '../base/context.js';
import type { GeneratorEntry } from '../generate/generator.js';
import { fullGroup, loadProjectFile, saveProjectFile, type DeployImageOptions, type ProjectFile, type ProjectResource } from '../project/project-file.js';
import { DEPLOY_IMAGE_PLUGIN, PLUGINS } from '../plugins/registry.js';
import { BOILERPLATE_FILE } from '../scaffold/boilerplate.js';
import { VirtualTree } from '../scaffold/tree.js';
import type { CreateApiOptions } from '../create-api/run-create-api.js';
import type { CreateWebhookOptions } from '../create-webhook/run-create-webhook.js';
import type { InitOptions } from '../init/run-init.js';

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
}

/** What the features read: the recorded project and the files of the project it comes from. */
export interface ReplayInput {
  project: ProjectFile;
  /** Reads a file of the input project, undefined when absent. */
  read: (file: string) => Promise<string | undefined>;
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

const flag = (name: string, value: string | undefined): string[] => (value === undefined ? [] : [`--${name}`, value]);
const toggle = (name: string, value: boolean | undefined): string[] => (value === undefined ? [] : [value ? `--${name}` : `--no-${name}`]);

const initFeature: ProjectFeature = {
  name: 'init',
  async steps({ project, read, kopSource }) {
    const boilerplate = parseBoilerplate(await read(BOILERPLATE_FILE));
    const options: InitOptions = {
      domain: project.domain,
      projectName: project.projectName,
      namespaced: project.namespaced ?? false,
      owner: boilerplate.owner,
      license: boilerplate.license,
      kopSource,
      skipInstall: true,
    };
    return [
      {
        title: 'init',
        argv: [
          'init',
          ...flag('domain', options.domain),
          ...flag('project-name', options.projectName),
          ...flag('owner', options.owner),
          ...flag('license', options.license),
          ...(options.namespaced ? ['--namespaced'] : []),
          ...flag('kop-source', options.kopSource),
          '--skip-install',
          '--yes',
        ],
        run: async (context) => {
          const { runInit } = await import('../init/run-init.js');
          await runInit(options, context);
        },
      },
    ];
  },
};

/**
 * True for a kind whose types came from `kop import crd` (an external kind, another domain, or a
 * types file with the import's banner): no command makes them again from PROJECT, since PROJECT
 * does not record the CRD they came from, so their files are copied from the input project.
 */
async function isImported(resource: ProjectResource, project: ProjectFile, read: ReplayInput['read']): Promise<boolean> {
  if (resource.external === true || resource.domain !== project.domain) return true;
  const types = resource.path === undefined ? undefined : await read(resource.path);
  return types !== undefined && types.includes('imported by `kop import crd`');
}

const importedFeature: ProjectFeature = {
  name: 'imported kinds (copied)',
  async steps({ project, read }) {
    const steps: ReplayStep[] = [];
    for (const resource of project.resources) {
      if (!(await isImported(resource, project, read)) || resource.path === undefined) continue;
      const files = [resource.path, `${resource.path.replace(/\/[^/]+$/, '')}/groupversion.ts`];
      steps.push({
        title: `copy ${resource.kind} ${fullGroup(resource)}/${resource.version} (imported with kop import crd): ${files.join(', ')}`,
        run: async (context) => {
          const tree = new VirtualTree(context.cwd);
          for (const file of files) {
            const content = await read(file);
            if (content !== undefined) tree.write(file, content, { kind: 'scaffolded' });
          }
          const rebuilt = await loadProjectFile(tree);
          const { controller: _controller, webhooks: _webhooks, ...entry } = resource;
          rebuilt.resources.push(entry);
          saveProjectFile(tree, rebuilt);
          await tree.flush();
        },
      });
    }
    return steps;
  },
};

/** `create api`'s options for one PROJECT entry (add new recorded create api flags here and in `createApiArgv`). */
export function createApiOptions(resource: ProjectResource): CreateApiOptions {
  return {
    group: resource.group,
    version: resource.version,
    kind: resource.kind,
    plural: resource.plural,
    namespaced: resource.api?.namespaced,
    resource: resource.api !== undefined,
    controller: resource.controller === true,
  };
}

function createApiArgv(options: CreateApiOptions): string[] {
  return [
    'create',
    'api',
    ...flag('group', options.group),
    ...flag('version', options.version),
    ...flag('kind', options.kind),
    ...flag('plural', options.plural),
    ...toggle('namespaced', options.namespaced),
    ...toggle('resource', options.resource),
    ...toggle('controller', options.controller),
    '--yes',
  ];
}

const apiFeature: ProjectFeature = {
  name: 'create api',
  async steps({ project, read }) {
    const steps: ReplayStep[] = [];
    for (const resource of project.resources) {
      const options = createApiOptions(resource);
      if (await isImported(resource, project, read)) {
        // The types are copied; a reconciler for them is still scaffolded by create api.
        if (!options.controller) continue;
        options.resource = false;
        options.namespaced = undefined;
      }
      if (!options.resource && !options.controller) continue;
      const deployImage = deployImageOf(project, resource);
      if (deployImage) {
        // A deploy-image kind: its types and controller come from the plugin, as it first ran.
        const pluginOptions = {
          ...options,
          plugins: ['deploy-image/v1-alpha'],
          image: deployImage.image,
          imageContainerCommand: deployImage.containerCommand,
          imageContainerPort: deployImage.containerPort,
          runAsUser: deployImage.runAsUser,
        };
        const argv = [
          ...createApiArgv(options).filter((arg) => arg !== '--yes'),
          '--plugins',
          'deploy-image/v1-alpha',
          ...flag('image', deployImage.image),
          ...flag('image-container-command', deployImage.containerCommand),
          ...flag('image-container-port', deployImage.containerPort),
          ...flag('run-as-user', deployImage.runAsUser),
          '--yes',
        ];
        steps.push({
          title: argv.join(' '),
          argv,
          run: async (context) => {
            const { runCreateApiWithPlugins } = await import('../plugins/run-create-api-plugins.js');
            await runCreateApiWithPlugins(pluginOptions, context);
          },
        });
        continue;
      }
      const argv = createApiArgv(options);
      steps.push({
        title: argv.join(' '),
        argv,
        run: async (context) => {
          const { runCreateApi } = await import('../create-api/run-create-api.js');
          await runCreateApi(options, context);
        },
      });
    }
    return steps;
  },
};

/** `create webhook`'s options for one PROJECT entry, or undefined when it records no webhook. */
export function createWebhookOptions(resource: ProjectResource): CreateWebhookOptions | undefined {
  const webhooks = resource.webhooks;
  if (!webhooks || !(webhooks.defaulting || webhooks.validation || webhooks.conversion)) return undefined;
  return {
    group: resource.group,
    version: resource.version,
    kind: resource.kind,
    defaulting: webhooks.defaulting === true,
    programmaticValidation: webhooks.validation === true,
    conversion: webhooks.conversion === true,
    spoke: webhooks.conversion ? [...(webhooks.spoke ?? [])] : undefined,
  };
}

function createWebhookArgv(options: CreateWebhookOptions): string[] {
  return [
    'create',
    'webhook',
    ...flag('group', options.group),
    ...flag('version', options.version),
    ...flag('kind', options.kind),
    ...(options.defaulting ? ['--defaulting'] : []),
    ...(options.programmaticValidation ? ['--programmatic-validation'] : []),
    ...(options.conversion ? ['--conversion', ...(options.spoke ?? []).flatMap((spoke) => ['--spoke', spoke])] : []),
    '--yes',
  ];
}

const webhookFeature: ProjectFeature = {
  name: 'create webhook',
  async steps({ project }) {
    const steps: ReplayStep[] = [];
    for (const resource of project.resources) {
      const options = createWebhookOptions(resource);
      if (options === undefined) continue;
      const argv = createWebhookArgv(options);
      steps.push({
        title: argv.join(' '),
        argv,
        run: async (context) => {
          const { runCreateWebhook } = await import('../create-webhook/run-create-webhook.js');
          await runCreateWebhook(options, context);
        },
      });
    }
    return steps;
  },
};

const generateFeature: ProjectFeature = {
  name: 'generate',
  async steps({ generators }) {
    if (generators === undefined) return [];
    return [
      {
        title: 'generate',
        argv: ['generate'],
        optional: true,
        run: async (context) => {
          const { runGenerate } = await import('../generate/run-generate.js');
          await runGenerate({ check: false, allowDangerousTypes: false, generators }, context);
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

/** The deploy-image options PROJECT recorded for `resource`, when the plugin scaffolded it. */
function deployImageOf(project: ProjectFile, resource: ProjectResource): DeployImageOptions | undefined {
  return project.plugins?.[DEPLOY_IMAGE_PLUGIN]?.resources.find(
    (entry) => entry.group === resource.group && entry.version === resource.version && entry.kind === resource.kind,
  )?.options;
}

const pluginsFeature: ProjectFeature = {
  name: 'edit --plugins',
  async steps({ project, read }) {
    // The edit plugins (helm, grafana), each by the key PROJECT has it under; create api's plugins
    // (deploy-image) replay with their kinds.
    const editPlugins = new Set(PLUGINS.filter((plugin) => plugin.command === 'edit').flatMap((plugin) => plugin.names));
    const plugins = (await pluginsOf(project, read)).filter((plugin) => editPlugins.has(plugin));
    return plugins.map((plugin) => ({
      title: `edit --plugins ${plugin}`,
      argv: ['edit', '--plugins', plugin],
      // The chart is built with kubectl kustomize from config/: without kubectl, the project is still whole.
      optional: true,
      run: async (context) => {
        const { runEdit } = await import('../plugins/run-edit.js');
        await runEdit({ plugins: [plugin] }, context);
      },
    }));
  },
};

/** The features in the order their commands can run: a kind before its webhooks, generated CRDs before a chart of them. */
export const PROJECT_FEATURES: readonly ProjectFeature[] = [initFeature, importedFeature, apiFeature, webhookFeature, generateFeature, pluginsFeature];

/** Every step that rebuilds the project `input` describes. */
export async function replaySteps(input: ReplayInput, features: readonly ProjectFeature[] = PROJECT_FEATURES): Promise<ReplayStep[]> {
  const steps: ReplayStep[] = [];
  for (const feature of features) steps.push(...(await feature.steps(input)));
  return steps;
}
