import { DynamicClient, NoMatchError, type RestClient, type UnstructuredObject } from '../runtime/client/index.js';
import { isConflict, isNotFound } from '../runtime/index.js';
import { describeObject, type ManifestObject } from './render-kustomization.js';

/** The field manager kop's server-side applies use; a later apply by the same manager takes back its fields. */
export const KOP_FIELD_MANAGER = 'kop';

/**
 * The order objects go in (kustomize's and Helm's install order, shortened): what others depend
 * on first — namespaces, CRDs, accounts and RBAC — workloads after, webhooks last so they never
 * intercept the creation of what they need. Kinds not listed go between services and workloads.
 */
const KIND_ORDER = [
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
];
const UNLISTED = KIND_ORDER.indexOf('DaemonSet');

function rank(object: ManifestObject): number {
  const at = KIND_ORDER.indexOf(object.kind);
  return at === -1 ? UNLISTED - 0.5 : at;
}

/** Objects in install order (stable within a kind); uninstall uses the reverse. */
export function installOrder(objects: readonly ManifestObject[]): ManifestObject[] {
  return objects
    .map((object, index) => ({ object, index }))
    .sort((a, b) => rank(a.object) - rank(b.object) || a.index - b.index)
    .map(({ object }) => object);
}

function groupVersion(object: ManifestObject): { group: string; version: string } {
  const slash = object.apiVersion.indexOf('/');
  return slash === -1
    ? { group: '', version: object.apiVersion }
    : { group: object.apiVersion.slice(0, slash), version: object.apiVersion.slice(slash + 1) };
}

/** Options of {@link applyManifests} and {@link deleteManifests}. */
export interface ManifestOperationOptions {
  rest: RestClient;
  /** Namespace for namespaced objects that name none (the kubeconfig context's, else `default`). */
  defaultNamespace: string;
  /** Server-side dry run (`dryRun=All`): the apiserver validates and admits, and stores nothing. */
  dryRun?: boolean;
  /** One line per object, in kubectl's words. */
  log: (line: string) => void;
  /** Lines for things skipped or worth a look. */
  warn: (line: string) => void;
}

/** A failure of one object, with what to do about it. */
export class ManifestOperationError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ManifestOperationError';
  }
}

/**
 * Server-side applies every object with field manager `kop`, in install order. Custom resources
 * whose CRD is in the same set wait until that CRD is Established (in a dry run, where the CRD is
 * not stored, they are skipped with a warning). `forceConflicts` takes fields another manager owns,
 * as `kubectl apply --server-side --force-conflicts` does.
 */
export async function applyManifests(
  objects: readonly ManifestObject[],
  options: ManifestOperationOptions & { forceConflicts?: boolean },
): Promise<void> {
  const client = new DynamicClient(options.rest);
  const defined = new Set(objects.filter(isCrd).map((crd) => crdGroupKind(crd)));
  const pending: ManifestObject[] = [];
  for (const object of installOrder(objects)) {
    const { group, version } = groupVersion(object);
    const definedHere = defined.has(`${group}/${object.kind}`);
    if (definedHere && pending.length > 0 && !options.dryRun) {
      await waitForEstablished(client, pending.splice(0));
      client.mapper.reset();
    }
    let resource;
    try {
      resource = await client.forKind({ group, version, kind: object.kind });
    } catch (error) {
      if (!(error instanceof NoMatchError)) throw error;
      if (definedHere && options.dryRun) {
        options.warn(
          `skipped in the dry run: ${describeObject(object)} (its CRD is in this set and a dry run does not create it)`,
        );
        continue;
      }
      throw new ManifestOperationError(
        `the cluster does not serve ${object.kind} in ${object.apiVersion} (${describeObject(object)})`,
        group === 'cert-manager.io'
          ? 'install cert-manager first (https://cert-manager.io/docs/installation/)'
          : `install the CRD of ${object.kind} first`,
      );
    }
    const namespace = object.metadata.namespace ?? options.defaultNamespace;
    const target = resource.type.namespaced ? resource.inNamespace(namespace) : resource;
    const body: UnstructuredObject = resource.type.namespaced
      ? { ...object, metadata: { ...object.metadata, namespace } }
      : object;
    try {
      await target.apply(body, {
        fieldManager: KOP_FIELD_MANAGER,
        force: options.forceConflicts ?? false,
        dryRun: options.dryRun,
      });
    } catch (error) {
      if (isConflict(error)) {
        throw new ManifestOperationError(
          `${describeObject(object)}: ${(error as Error).message}`,
          'another field manager owns these fields; pass --force-conflicts to take them',
        );
      }
      throw new ManifestOperationError(`${describeObject(object)}: ${(error as Error).message}`);
    }
    if (isCrd(object)) pending.push(object);
    options.log(`${describeObject(object)} serverside-applied${options.dryRun ? ' (server dry run)' : ''}`);
  }
}

/**
 * Deletes every object, in reverse install order (background propagation, as kubectl does).
 * An object that is not there, or whose kind the cluster no longer serves, is reported; with
 * `ignoreNotFound` silently skipped. Returns how many were not found.
 */
export async function deleteManifests(
  objects: readonly ManifestObject[],
  options: ManifestOperationOptions & { ignoreNotFound?: boolean },
): Promise<number> {
  const client = new DynamicClient(options.rest);
  let notFound = 0;
  for (const object of installOrder(objects).reverse()) {
    const { group, version } = groupVersion(object);
    try {
      const resource = await client.forKind({ group, version, kind: object.kind });
      const target = resource.type.namespaced
        ? resource.inNamespace(object.metadata.namespace ?? options.defaultNamespace)
        : resource;
      await target.delete(object.metadata.name, { propagationPolicy: 'Background', dryRun: options.dryRun });
      options.log(`${describeObject(object)} deleted${options.dryRun ? ' (server dry run)' : ''}`);
    } catch (error) {
      if (!(error instanceof NoMatchError) && !isNotFound(error))
        throw new ManifestOperationError(`${describeObject(object)}: ${(error as Error).message}`);
      notFound++;
      if (!options.ignoreNotFound) options.warn(`${describeObject(object)} not found`);
    }
  }
  return notFound;
}

function isCrd(object: ManifestObject): boolean {
  return object.kind === 'CustomResourceDefinition' && object.apiVersion.startsWith('apiextensions.k8s.io/');
}

function crdGroupKind(crd: ManifestObject): string {
  const spec = crd.spec as { group?: string; names?: { kind?: string } } | undefined;
  return `${spec?.group ?? ''}/${spec?.names?.kind ?? ''}`;
}

/** Polls the CRDs until each reports Established, for at most `timeoutMs`. */
async function waitForEstablished(
  client: DynamicClient,
  crds: readonly ManifestObject[],
  timeoutMs = 60_000,
): Promise<void> {
  const resource = client.resource(
    { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
    'CustomResourceDefinition',
  );
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    for (;;) {
      const current = await resource.get(crd.metadata.name);
      const conditions =
        (current.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
      if (conditions.some((condition) => condition.type === 'Established' && condition.status === 'True')) break;
      if (Date.now() > deadline)
        throw new ManifestOperationError(`CRD ${crd.metadata.name} was not Established within ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
