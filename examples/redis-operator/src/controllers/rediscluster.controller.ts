import type { Service, StatefulSet } from 'kop/api';
import {
  addFinalizer,
  createOrUpdate,
  hasFinalizer,
  isBeingDeleted,
  removeFinalizer,
  ResourceClient,
  setCondition,
  setControllerReference,
  type Lister,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
  type Request,
  type ResourceType,
  type RestClient,
  serviceType,
  statefulSetType,
} from 'kop/runtime';
import { API_VERSION, GROUP, VERSION } from '../../api/cache/v1alpha1/groupversion.js';
import type { RedisCluster } from '../../api/cache/v1alpha1/rediscluster.types.js';

// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

/** Runs a RedisCluster as a StatefulSet behind a headless Service. */
export class RedisClusterReconciler {
  readonly kind = 'RedisCluster';
  readonly apiVersion = API_VERSION;
  static readonly resource: ResourceType = { group: GROUP, version: VERSION, resource: 'redisclusters', kind: 'RedisCluster', namespaced: true };
  static readonly finalizer = 'cache.example.com/finalizer';
  private clusters: Lister<RedisCluster> | undefined;

  constructor(private readonly rest: RestClient) {}

  /** Reconciles on changes to RedisClusters and to the StatefulSets and Services they own. */
  setupWithManager(manager: Manager): void {
    this.clusters = manager.lister<RedisCluster>(RedisClusterReconciler.resource);
    manager
      .controller('rediscluster')
      .for(RedisClusterReconciler.resource)
      .owns(statefulSetType)
      .owns(serviceType)
      .complete(this);
  }

  async reconcile(request: Request, context?: ReconcileContext): Promise<ReconcileResult> {
    const clusters = new ResourceClient<RedisCluster>(this.rest, RedisClusterReconciler.resource, request.namespace);
    // The manager's cache when running under it; a live read otherwise (tests calling reconcile directly).
    const cached = this.clusters ? this.clusters.get(request.namespace, request.name) : await clusters.get(request.name).catch(() => undefined);
    if (!cached) return;
    if (isBeingDeleted(cached)) {
      // The StatefulSet and Service are deleted with it through their owner references.
      if (hasFinalizer(cached, RedisClusterReconciler.finalizer)) await removeFinalizer(clusters, cached, RedisClusterReconciler.finalizer);
      return;
    }
    const cluster = await addFinalizer(clusters, cached, RedisClusterReconciler.finalizer);
    const name = cluster.metadata!.name!;
    const labels = { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': name };

    const services = new ResourceClient<Service>(this.rest, serviceType, request.namespace);
    await createOrUpdate(services, name, (service) => {
      setControllerReference(cluster, service);
      service.spec = { ...service.spec, clusterIP: 'None', selector: labels, ports: [{ name: 'redis', port: 6379 }] };
    });

    const statefulSets = new ResourceClient<StatefulSet>(this.rest, statefulSetType, request.namespace);
    const { object: statefulSet, operation } = await createOrUpdate(statefulSets, name, (sts) => {
      setControllerReference(cluster, sts);
      sts.metadata = { ...sts.metadata, labels };
      sts.spec = {
        ...sts.spec,
        serviceName: name,
        replicas: cluster.spec.replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: 'redis', image: cluster.spec.image ?? 'redis:7', ports: [{ name: 'redis', containerPort: 6379 }] }] },
        },
      };
    });
    if (operation !== 'unchanged') context?.logger.info('statefulset', { operation, replicas: cluster.spec.replicas });

    const readyReplicas = statefulSet.status?.readyReplicas ?? 0;
    const conditions = (cluster.status?.conditions ?? []).map((condition) => ({ ...condition }));
    const ready = readyReplicas >= cluster.spec.replicas;
    setCondition(conditions, {
      type: 'Ready',
      status: ready ? 'True' : 'False',
      reason: ready ? 'AllNodesReady' : 'NodesStarting',
      message: `${readyReplicas}/${cluster.spec.replicas} nodes ready`,
      observedGeneration: cluster.metadata?.generation,
    });
    const status = { ...cluster.status, readyReplicas, selector: Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(','), conditions };
    if (JSON.stringify(status) !== JSON.stringify(cluster.status)) await clusters.updateStatus({ ...cluster, status });
  }
}
