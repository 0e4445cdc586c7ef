import { type Context, UsageError } from '../../base/index.js';
import {
  ownedPlan,
  runCreateApi,
  type ApiControllerData,
  type ApiControllerTestData,
  type ApiTemplateData,
  type CreateApiOptions,
  type CreateApiStep,
} from '../../create-api/index.js';
import {
  type PhaseHandlers,
  fullGroup,
  type DeployImageOptions,
  type DeployImageResource,
  type ProjectFile,
} from '../../project/index.js';
import { parseImageReference } from '../../deploy/index.js';
import { type FlushResult, jsonLiteral, withTemplateData } from '../../scaffold/index.js';
import { DEPLOY_IMAGE_PLUGIN, type CreateApiPluginFlags } from './deploy-image-flags.js';
import { insertManagerEnv } from './manager-env.js';
import {
  DEPLOY_IMAGE_CONTROLLER_TEMPLATES,
  DEPLOY_IMAGE_CONTROLLER_TEST_TEMPLATES,
  DEPLOY_IMAGE_RESOURCE_TEMPLATES,
  type DeployImageTemplateData,
} from './deploy-image-template-data.js';

/** The deploy-image flags of `kop create api`, as Kubebuilder spells them (declared in deploy-image-flags.ts). */
export type DeployImageFlags = Omit<CreateApiPluginFlags, 'plugins'>;

/** Names the deploy-image templates import; a kind of that name would not compile. */
export const RESERVED_BY_TEMPLATES = new Set([
  'Container',
  'Deployment',
  'DeploymentSpec',
  'EventRecorder',
  'Logger',
  'PodSpec',
]);

/** Checks the flags and returns the options PROJECT records (Kubebuilder's: strings, absent when not given). */
export function deployImageOptions(flags: DeployImageFlags): DeployImageOptions {
  if (flags.image === undefined || flags.image === '') {
    throw new UsageError(
      '--image: the deploy-image plugin needs the image the kind runs',
      'pass --image <ref>, e.g. --image memcached:1.6.26-alpine3.19',
    );
  }
  const reference = parseImageReference(flags.image);
  if (typeof reference === 'string') throw new UsageError(`--image: ${reference}`);
  const options: DeployImageOptions = { image: flags.image };
  if (flags.imageContainerCommand !== undefined) {
    const parts = flags.imageContainerCommand.split(',');
    if (parts.some((part) => part.trim() === '')) {
      throw new UsageError(
        `--image-container-command: "${flags.imageContainerCommand}" has an empty part`,
        'give the command and its arguments comma-separated, e.g. memcached,--memory-limit=64,-v',
      );
    }
    options.containerCommand = flags.imageContainerCommand;
  }
  if (flags.imageContainerPort !== undefined) {
    const port = Number(flags.imageContainerPort);
    if (!/^\d+$/.test(flags.imageContainerPort) || port < 1 || port > 65535) {
      throw new UsageError(`--image-container-port: "${flags.imageContainerPort}" is not a port number (1 to 65535)`);
    }
    options.containerPort = String(port);
  }
  if (flags.runAsUser !== undefined) {
    const user = Number(flags.runAsUser);
    if (!/^\d+$/.test(flags.runAsUser) || user > 2147483647)
      throw new UsageError(`--run-as-user: "${flags.runAsUser}" is not a user id (0 to 2147483647)`);
    if (user === 0)
      throw new UsageError(
        '--run-as-user: 0 is root, and the pods run as non-root (the restricted Pod Security Standard)',
        'pass the id of a non-root user of the image, e.g. 1001',
      );
    options.runAsUser = String(user);
  }
  return options;
}

/**
 * The deploy-image plugin's handlers of create api's phases: create api's run with the plugin's
 * templates (types with spec.size, a controller that runs the image as a Deployment, its test
 * against the control plane), the image's variable in the manager's Deployment, and the options
 * recorded in PROJECT under `plugins: deploy-image.go.kubebuilder.io/v1-alpha`.
 */
export function deployImagePhases(flags: DeployImageFlags): PhaseHandlers<CreateApiStep> {
  let recorded: DeployImageOptions | undefined;
  let imageEnvVar: string | undefined;
  return {
    bindFlags(step) {
      recorded = deployImageOptions(flags);
      const { options } = step;
      if (options.resource === false || options.controller === false) {
        throw new UsageError(
          '--plugins deploy-image/v1-alpha scaffolds both the API types and the controller',
          'leave out --resource=false and --controller=false',
        );
      }
      if (options.namespaced === false) {
        throw new UsageError(
          '--plugins deploy-image/v1-alpha needs a namespaced kind: its Deployment lives in the namespace of each object',
          'leave out --namespaced=false',
        );
      }
      step.options = { ...options, resource: true, controller: true, namespaced: true };
    },

    preScaffold(step) {
      const { names } = ownedPlan(step);
      const { kind, kindLower } = names;
      if (RESERVED_BY_TEMPLATES.has(kind)) {
        throw new UsageError(
          `--kind: the deploy-image controller already uses the name ${kind}`,
          `pick another kind, e.g. "App${kind}"`,
        );
      }
      const command = recorded!.containerCommand?.split(',');
      imageEnvVar = `${kind.toUpperCase()}_IMAGE`;
      const image: DeployImageTemplateData = {
        // Checked as an image reference, which has no quotes or backslashes: safe in a '...' literal.
        image: recorded!.image,
        imageEnvVar,
        imageEnvConstant: imageEnvVar,
        containerName: kindLower.slice(0, 63),
        containerCommand: command ?? false,
        // Each part a JSON string literal, so no argument can break out of the array.
        containerCommandLiteral: command ? `[${command.map((part) => jsonLiteral(part)).join(', ')}]` : false,
        containerPort: recorded!.containerPort !== undefined ? Number(recorded!.containerPort) : false,
        // An IANA service name: at most 15 characters, with a letter.
        portName: kindLower.slice(0, 15),
        runAsUser: recorded!.runAsUser !== undefined ? Number(recorded!.runAsUser) : false,
        componentLabel: kindLower.slice(0, 63),
        managedByLabel: `${kindLower}-controller`.slice(0, 63).replace(/-+$/, ''),
      };
      // create api renders these in place of its own, with its data and the image's.
      step.templates = {
        ...step.templates,
        'api/resource': withTemplateData<ApiTemplateData, DeployImageTemplateData>(
          DEPLOY_IMAGE_RESOURCE_TEMPLATES,
          image,
        ),
        'api/controller': withTemplateData<ApiControllerData, DeployImageTemplateData>(
          DEPLOY_IMAGE_CONTROLLER_TEMPLATES,
          image,
        ),
        'api/controller-test': withTemplateData<ApiControllerTestData, DeployImageTemplateData>(
          DEPLOY_IMAGE_CONTROLLER_TEST_TEMPLATES,
          image,
        ),
      };
    },

    async scaffold(step) {
      const { tree, project } = step;
      const { names } = ownedPlan(step);
      await insertManagerEnv(tree, imageEnvVar!, recorded!.image);
      recordDeployImage(project, {
        domain: project.domain,
        group: names.group,
        version: names.version,
        kind: names.kind,
        options: recorded!,
      });
    },
  };
}

/** `kop create api --plugins deploy-image/v1-alpha --image <ref> ...`: create api with the plugin's phases. */
export async function runDeployImage(
  options: CreateApiOptions & DeployImageFlags,
  context: Context,
): Promise<FlushResult> {
  const { image, imageContainerCommand, imageContainerPort, runAsUser, ...createApi } = options;
  return runCreateApi(createApi, context, [
    deployImagePhases({ image, imageContainerCommand, imageContainerPort, runAsUser }),
  ]);
}

/** Adds (or replaces) the kind's entry under PROJECT's deploy-image plugin. */
export function recordDeployImage(project: ProjectFile, resource: DeployImageResource): void {
  const plugins = (project.plugins ??= {});
  const previous = plugins[DEPLOY_IMAGE_PLUGIN]?.resources ?? [];
  const same = (r: DeployImageResource) =>
    r.kind === resource.kind && r.version === resource.version && fullGroup(r) === fullGroup(resource);
  plugins[DEPLOY_IMAGE_PLUGIN] = { resources: [...previous.filter((r) => !same(r)), resource] };
}
