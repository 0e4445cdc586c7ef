/**
 * The flags the deploy-image plugin adds to `kop create api` (and `--plugins`, which picks
 * create api's plugins), each declared once as in create-api/create-api-flags.ts; PROJECT
 * records them under the plugin's key. Light: `kop --help` loads it.
 */
import { flag, type OptionsOf, type RecordedSource } from '../../project/command-flags.js';
import type { DeployImageOptions } from '../../project/index.js';

/** Kubebuilder's key of the deploy-image plugin (declared with its flags, which read PROJECT under it; the registry lists it). */
export const DEPLOY_IMAGE_PLUGIN = 'deploy-image.go.kubebuilder.io/v1-alpha';

/** The deploy-image options PROJECT recorded for the source's kind, when the plugin scaffolded it. */
export function deployImageOf({ project, resource }: RecordedSource): DeployImageOptions | undefined {
  return project.plugins?.[DEPLOY_IMAGE_PLUGIN]?.resources.find(
    (entry) => entry.group === resource.group && entry.version === resource.version && entry.kind === resource.kind,
  )?.options;
}

export const CREATE_API_PLUGIN_FLAGS = [
  flag({
    name: 'plugins',
    type: 'list',
    arg: '<names>',
    help: 'plugins to scaffold with, comma-separated: deploy-image/v1-alpha (or deploy-image.go.kubebuilder.io/v1-alpha)',
    recorded: (source) => (deployImageOf(source) === undefined ? undefined : ['deploy-image/v1-alpha']),
  }),
  flag({
    name: 'image',
    type: 'value',
    arg: '<ref>',
    help: "deploy-image: the image the kind's controller runs as a Deployment",
    recorded: (source) => deployImageOf(source)?.image,
  }),
  flag({
    name: 'image-container-command',
    type: 'value',
    arg: '<a,b,...>',
    help: "deploy-image: the container's command and arguments, comma-separated",
    recorded: (source) => deployImageOf(source)?.containerCommand,
  }),
  flag({
    name: 'image-container-port',
    type: 'value',
    arg: '<port>',
    help: 'deploy-image: the port the container listens on',
    recorded: (source) => deployImageOf(source)?.containerPort,
  }),
  flag({
    name: 'run-as-user',
    type: 'value',
    arg: '<uid>',
    help: 'deploy-image: the (non-root) user id the container runs as',
    recorded: (source) => deployImageOf(source)?.runAsUser,
  }),
] as const;

/** The values of {@link CREATE_API_PLUGIN_FLAGS}, by field. */
export type CreateApiPluginFlags = OptionsOf<typeof CREATE_API_PLUGIN_FLAGS>;
