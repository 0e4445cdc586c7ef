import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type Context, KopError, UsageError } from '../base/index.js';
import { loadProjectFile } from '../project/index.js';
import { flushTree, type FlushResult, withHeader, VirtualTree } from '../scaffold/index.js';
import { NoConfigurationError, RestClient, InvalidConfigurationError } from '../runtime/client/index.js';
import { applyManifests, deleteManifests, ManifestOperationError } from './apply-manifests.js';
import { overrideFor, parseImageReference, setImages } from './image-reference.js';
import { refuseDroppedStoredVersions } from './stored-versions-check.js';
import { warnRejectedStoredObjects } from './stored-objects-check.js';
import { renderKustomization, serializeManifests, type ManifestObject } from './render-kustomization.js';

/** Which cluster: the current kubeconfig context unless these say otherwise (as kubectl's flags do). */
export interface ClusterOptions {
  kubeconfig?: string;
  context?: string;
}

/** `kop deploy`'s options. */
export interface DeployOptions extends ClusterOptions {
  /** The manager's image; default `$IMG`, else the image config/manager names. */
  image?: string;
  forceConflicts?: boolean;
}

/** `kop undeploy` and `kop uninstall`'s options. */
export interface DeleteOptions extends ClusterOptions {
  /** Say nothing about objects that are already gone (Kubebuilder's `ignore-not-found=true`). */
  ignoreNotFound?: boolean;
}

/** `kop install`'s options. */
export interface InstallOptions extends ClusterOptions {
  forceConflicts?: boolean;
}

/** `kop build-installer`'s options. */
export interface BuildInstallerOptions {
  image?: string;
  /** Project-relative output file; default dist/install.yaml. */
  output?: string;
}

/** Where the pieces are, relative to the project root (Kubebuilder's layout). */
export const DEPLOY_PATHS = {
  crd: 'config/crd',
  default: 'config/default',
  managerKustomization: 'config/manager/kustomization.yaml',
  installer: 'dist/install.yaml',
} as const;

/** The image name config/manager/kustomization.yaml gives the manager (kustomize matches on it). */
const MANAGER_IMAGE_PLACEHOLDER = 'controller';

/**
 * `kop install`: applies the CRDs (`kubectl kustomize config/crd`) to the current cluster with
 * server-side apply. Kubebuilder's `make install`.
 */
export async function runInstall(options: InstallOptions, context: Context): Promise<void> {
  await requireProject(context);
  const objects = await renderKustomization(DEPLOY_PATHS.crd, context);
  if (objects.length === 0) {
    context.out.info(
      'No CRDs to install (config/crd lists none; run `kop generate manifests` after `kop create api`).',
    );
    return;
  }
  await withCluster(options, context, async (operation) => {
    await refuseDroppedStoredVersions(objects, operation.rest);
    await warnRejectedStoredObjects(objects, operation.rest, context.out);
    await applyManifests(objects, { ...operation, forceConflicts: options.forceConflicts });
  });
}

/** `kop uninstall`: deletes the CRDs (and with them every object of those kinds). Kubebuilder's `make uninstall`. */
export async function runUninstall(options: DeleteOptions, context: Context): Promise<void> {
  await requireProject(context);
  const objects = await renderKustomization(DEPLOY_PATHS.crd, context);
  if (objects.length === 0) {
    context.out.info('No CRDs to delete (config/crd lists none).');
    return;
  }
  await withCluster(options, context, (operation) => deleteAll(objects, options, operation));
}

/**
 * `kop deploy`: builds config/default, sets the manager's image (`--image`, else `$IMG`) the way
 * kustomize's `images:` would, and applies everything with server-side apply. Kubebuilder's
 * `make deploy IMG=...`, without editing config/manager/kustomization.yaml.
 */
export async function runDeploy(options: DeployOptions, context: Context): Promise<void> {
  await requireProject(context);
  const objects = await renderWithImage(options.image, context);
  await withCluster(options, context, async (operation) => {
    await refuseDroppedStoredVersions(objects, operation.rest);
    await warnRejectedStoredObjects(objects, operation.rest, context.out);
    await applyManifests(objects, { ...operation, forceConflicts: options.forceConflicts });
  });
}

/** `kop undeploy`: deletes what config/default builds, CRDs and namespace included. Kubebuilder's `make undeploy`. */
export async function runUndeploy(options: DeleteOptions, context: Context): Promise<void> {
  await requireProject(context);
  const objects = await renderKustomization(DEPLOY_PATHS.default, context);
  await withCluster(options, context, (operation) => deleteAll(objects, options, operation));
}

/**
 * `kop build-installer`: writes config/default, built and with the image set, to one file
 * (dist/install.yaml) that `kubectl apply --server-side -f` installs. Kubebuilder's `make build-installer`.
 */
export async function runBuildInstaller(options: BuildInstallerOptions, context: Context): Promise<FlushResult> {
  const tree = new VirtualTree(context.cwd);
  await loadProjectFile(tree);
  const output = options.output ?? DEPLOY_PATHS.installer;
  const relative = path.relative(context.cwd, path.resolve(context.cwd, output)).split(path.sep).join('/');
  if (relative === '' || relative.startsWith('../') || path.isAbsolute(relative)) {
    throw new UsageError(
      `--output ${output}: the installer must be written inside the project`,
      'pass a path such as dist/install.yaml',
    );
  }
  const objects = await renderWithImage(options.image, context);
  const body = [
    `# The whole of ${DEPLOY_PATHS.default} in one file (kop build-installer), to install with`,
    '#   kubectl apply --server-side -f install.yaml',
    serializeManifests(objects),
  ].join('\n');
  tree.write(relative, withHeader(relative, body, 'generated'), { kind: 'generated' });
  return flushTree(tree, context);
}

/** config/default built, with the manager's image replaced when one is given. */
async function renderWithImage(given: string | undefined, context: Context): Promise<ManifestObject[]> {
  const image = given ?? (context.env.IMG && context.env.IMG !== '' ? context.env.IMG : undefined);
  const source = given !== undefined ? '--image' : 'IMG';
  const reference = image === undefined ? undefined : parseImageReference(image);
  if (typeof reference === 'string') throw new UsageError(`${source}: ${reference}`);
  const objects = await renderKustomization(DEPLOY_PATHS.default, context);
  const placeholder = await managerImageName(context);
  if (reference === undefined) {
    context.out.warn(
      `no --image (or IMG) given: the manager keeps the image ${DEPLOY_PATHS.managerKustomization} names`,
    );
    return objects;
  }
  if (setImages(objects, overrideFor(placeholder, reference)) === 0) {
    throw new KopError(
      `no container in ${DEPLOY_PATHS.default}'s output has the image "${placeholder}" to replace with ${image}`,
      `the manager's container image must be named "${placeholder}" (the images: entry named ${MANAGER_IMAGE_PLACEHOLDER} in ${DEPLOY_PATHS.managerKustomization})`,
    );
  }
  return objects;
}

/**
 * The image name the manager's container has after config/manager's own `images:` entry for
 * `controller` (its newName, when the user set one there): the name an outer `images:` matches.
 */
async function managerImageName(context: Context): Promise<string> {
  const tree = new VirtualTree(context.cwd);
  const text = await tree.read(DEPLOY_PATHS.managerKustomization);
  if (text === undefined) return MANAGER_IMAGE_PLACEHOLDER;
  const images = (parseYaml(text) as { images?: Array<{ name?: string; newName?: string }> } | null)?.images ?? [];
  return images.find((entry) => entry.name === MANAGER_IMAGE_PLACEHOLDER)?.newName ?? MANAGER_IMAGE_PLACEHOLDER;
}

async function requireProject(context: Context): Promise<void> {
  await loadProjectFile(new VirtualTree(context.cwd));
}

type Operation = Parameters<typeof applyManifests>[1];

/** A REST client for the cluster the flags name (kubectl's loading rules), with a hint when there is none. */
export function connect(options: ClusterOptions, context: Context, userAgent: string): RestClient {
  try {
    return RestClient.load(
      {
        kubeconfig: options.kubeconfig ? path.resolve(context.cwd, options.kubeconfig) : undefined,
        context: options.context,
        env: context.env,
      },
      { userAgent },
    );
  } catch (error) {
    if (error instanceof NoConfigurationError || error instanceof InvalidConfigurationError) {
      throw new KopError(error.message, 'pass --kubeconfig, set KUBECONFIG, or select a context with --context');
    }
    throw error;
  }
}

/** Connects with the kubeconfig (kubectl's loading rules) and turns failures into messages with hints. */
async function withCluster(
  options: ClusterOptions,
  context: Context,
  run: (operation: Operation) => Promise<unknown>,
): Promise<void> {
  const rest = connect(options, context, 'kop-deploy');
  context.out.info(
    `${context.dryRun ? 'Dry run against' : 'Using'} context "${rest.config.context}" (${rest.config.server})`,
  );
  try {
    await run({
      rest,
      defaultNamespace: rest.config.namespace ?? 'default',
      dryRun: context.dryRun,
      log: (line) => context.out.info(line),
      warn: (line) => context.out.warn(line),
    });
  } catch (error) {
    if (error instanceof ManifestOperationError) throw new KopError(error.message, error.hint);
    throw error;
  }
}

async function deleteAll(
  objects: readonly ManifestObject[],
  options: DeleteOptions,
  operation: Operation,
): Promise<void> {
  const notFound = await deleteManifests(objects, { ...operation, ignoreNotFound: options.ignoreNotFound });
  if (notFound > 0 && !options.ignoreNotFound) {
    throw new KopError(
      `${notFound} of ${objects.length} objects were not found`,
      'pass --ignore-not-found when some are expected to be gone',
    );
  }
}
