import type { AdmissionContext, Defaulter, Manager } from 'kop/runtime';
import { redisClusterType } from '../../../../api/cache/v1alpha1/rediscluster.client.js';
import type { RedisCluster } from '../../../../api/cache/v1alpha1/rediscluster.types.js';

// +kubebuilder:webhook:path=/mutate-cache-example-com-v1alpha1-rediscluster,mutating=true,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=redisclusters,verbs=create;update,versions=v1alpha1,name=mrediscluster-v1alpha1.kb.io,admissionReviewVersions=v1

/** The Redis image a cluster runs when its spec names none; pinned, so every node runs the same build. */
export const DEFAULT_REDIS_IMAGE = 'redis:7.4';

/**
 * Pins the image of a RedisCluster that names none, so the image a cluster runs is recorded in
 * its spec (and a later change of the default does not roll every cluster).
 */
export class RedisClusterDefaulter implements Defaulter<RedisCluster> {
  setupWithManager(manager: Manager): void {
    manager.webhook(redisClusterType).withDefaulter(this).complete();
  }

  default(cluster: RedisCluster, context: AdmissionContext): void {
    if (cluster.spec.image === undefined || cluster.spec.image === '') {
      cluster.spec.image = DEFAULT_REDIS_IMAGE;
      context.logger.debug('defaulted the image', { name: cluster.metadata?.name, image: DEFAULT_REDIS_IMAGE });
    }
  }
}
