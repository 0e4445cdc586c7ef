// Typed clients for the built-in kinds operators usually read or own.
// The object types come from kop/api as type-only imports: they vanish from the emitted
// JavaScript, so kop/runtime still loads nothing from outside src/runtime at run time, while
// users get the same types their API files and controllers already import.
import type {
  ConfigMap,
  CronJob,
  Deployment,
  Event,
  Job,
  Lease,
  Namespace,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  ServiceAccount,
  StatefulSet,
} from '../../../api/index.js';
import type { RestClient } from '../rest/rest-client.js';
import type { ResourceType } from '../resource/options.js';
import {
  NamespacedResourceClient,
  ResourceClient,
  ScalableResourceClient,
  clusterResource,
  namespacedResource,
  namespacedScalableResource,
} from '../resource/resource-client.js';

function core(resource: string, kind: string, namespaced = true): ResourceType {
  return { group: '', version: 'v1', resource, kind, namespaced };
}

/** Where each built-in kind with a typed client is served. */
export const coreResourceTypes = {
  ConfigMap: core('configmaps', 'ConfigMap'),
  Secret: core('secrets', 'Secret'),
  Service: core('services', 'Service'),
  ServiceAccount: core('serviceaccounts', 'ServiceAccount'),
  Pod: core('pods', 'Pod'),
  PersistentVolumeClaim: core('persistentvolumeclaims', 'PersistentVolumeClaim'),
  Namespace: core('namespaces', 'Namespace', false),
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
  StatefulSet: { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true },
  Job: { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true },
  CronJob: { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true },
  Event: { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true },
  Lease: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
} as const satisfies Record<string, ResourceType>;

/** v1 ConfigMaps. */
export function configMaps(rest: RestClient): NamespacedResourceClient<ConfigMap> {
  return namespacedResource<ConfigMap>(rest, coreResourceTypes.ConfigMap);
}

/** v1 Secrets. */
export function secrets(rest: RestClient): NamespacedResourceClient<Secret> {
  return namespacedResource<Secret>(rest, coreResourceTypes.Secret);
}

/** v1 Services. */
export function services(rest: RestClient): NamespacedResourceClient<Service> {
  return namespacedResource<Service>(rest, coreResourceTypes.Service);
}

/** v1 ServiceAccounts. */
export function serviceAccounts(rest: RestClient): NamespacedResourceClient<ServiceAccount> {
  return namespacedResource<ServiceAccount>(rest, coreResourceTypes.ServiceAccount);
}

/** v1 Pods. */
export function pods(rest: RestClient): NamespacedResourceClient<Pod> {
  return namespacedResource<Pod>(rest, coreResourceTypes.Pod);
}

/** v1 PersistentVolumeClaims. */
export function persistentVolumeClaims(rest: RestClient): NamespacedResourceClient<PersistentVolumeClaim> {
  return namespacedResource<PersistentVolumeClaim>(rest, coreResourceTypes.PersistentVolumeClaim);
}

/** v1 Namespaces (cluster-scoped). */
export function namespaces(rest: RestClient): ResourceClient<Namespace> {
  return clusterResource<Namespace>(rest, coreResourceTypes.Namespace);
}

/** apps/v1 Deployments, with the scale subresource. */
export function deployments(rest: RestClient): NamespacedResourceClient<Deployment, ScalableResourceClient<Deployment>> {
  return namespacedScalableResource<Deployment>(rest, coreResourceTypes.Deployment);
}

/** apps/v1 StatefulSets, with the scale subresource. */
export function statefulSets(rest: RestClient): NamespacedResourceClient<StatefulSet, ScalableResourceClient<StatefulSet>> {
  return namespacedScalableResource<StatefulSet>(rest, coreResourceTypes.StatefulSet);
}

/** batch/v1 Jobs. */
export function jobs(rest: RestClient): NamespacedResourceClient<Job> {
  return namespacedResource<Job>(rest, coreResourceTypes.Job);
}

/** batch/v1 CronJobs. */
export function cronJobs(rest: RestClient): NamespacedResourceClient<CronJob> {
  return namespacedResource<CronJob>(rest, coreResourceTypes.CronJob);
}

/** events.k8s.io/v1 Events. */
export function events(rest: RestClient): NamespacedResourceClient<Event> {
  return namespacedResource<Event>(rest, coreResourceTypes.Event);
}

/** coordination.k8s.io/v1 Leases (leader election). */
export function leases(rest: RestClient): NamespacedResourceClient<Lease> {
  return namespacedResource<Lease>(rest, coreResourceTypes.Lease);
}
