import {
  createOrUpdate,
  finalizer,
  isNotFound,
  setCondition,
  setControllerReference,
  type Client,
  type Logger,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
  type Request,
} from 'kop/runtime';
import { appsV1StatefulSetType, coreV1ServiceType } from 'kop/runtime/builtin';
import { redisClusterType } from '../../api/cache/v1alpha1/rediscluster.client.js';
import type { RedisCluster } from '../../api/cache/v1alpha1/rediscluster.types.js';

// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=redisclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

/** Runs a RedisCluster as a StatefulSet behind a headless Service. */
export class RedisClusterReconciler {
  static readonly finalizer = 'cache.example.com/finalizer';

  /** Reconciles on changes to RedisClusters and to the StatefulSets and Services they own. */
  setupWithManager(manager: Manager): void {
    manager.controller('rediscluster').for(redisClusterType).owns(appsV1StatefulSetType).owns(coreV1ServiceType).complete(this);
  }

  async reconcile(request: Request, { client, logger }: ReconcileContext): Promise<ReconcileResult> {
    let cluster: RedisCluster;
    try {
      cluster = await client.get(redisClusterType, request);
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    // The StatefulSet and Service are deleted with it through their owner references: no cleanup.
    return finalizer(client, redisClusterType, cluster, RedisClusterReconciler.finalizer, {
      apply: (current) => this.apply(client, logger, current),
      cleanup: () => undefined,
    });
  }

  private async apply(client: Client, logger: Logger, cluster: RedisCluster): Promise<ReconcileResult> {
    const name = cluster.metadata!.name!;
    const key = { namespace: cluster.metadata!.namespace!, name };
    const labels = { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': name };

    await createOrUpdate(client, coreV1ServiceType, key, (service) => {
      setControllerReference(cluster, service);
      service.spec = { ...service.spec, clusterIP: 'None', selector: labels, ports: [{ name: 'redis', port: 6379 }] };
    });

    const { object: statefulSet, operation } = await createOrUpdate(client, appsV1StatefulSetType, key, (sts) => {
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
    if (operation !== 'unchanged') logger.info('statefulset', { operation, replicas: cluster.spec.replicas });

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
    if (JSON.stringify(status) !== JSON.stringify(cluster.status)) await client.status().update(redisClusterType, { ...cluster, status });
  }
}
