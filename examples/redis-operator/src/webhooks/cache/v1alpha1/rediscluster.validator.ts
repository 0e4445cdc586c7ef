import { FieldError, ValidationError, type AdmissionContext, type AdmissionWarnings, type Manager, type Validator } from 'kop/runtime';
import { redisClusterType } from '../../../../api/cache/v1alpha1/rediscluster.client.js';
import type { RedisCluster } from '../../../../api/cache/v1alpha1/rediscluster.types.js';

// +kubebuilder:webhook:path=/validate-cache-example-com-v1alpha1-rediscluster,mutating=false,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=redisclusters,verbs=create;update,versions=v1alpha1,name=vrediscluster-v1alpha1.kb.io,admissionReviewVersions=v1

/**
 * Refuses images without a tag or digest (or tagged `latest`): nodes started at different times
 * would run different Redis builds. Warns when a cluster shrinks, since the data of the removed
 * nodes goes with them.
 */
export class RedisClusterValidator implements Validator<RedisCluster> {
  setupWithManager(manager: Manager): void {
    manager.webhook(redisClusterType).withValidator(this).complete();
  }

  validateCreate(cluster: RedisCluster): AdmissionWarnings {
    validateImage(cluster);
  }

  validateUpdate(old: RedisCluster, cluster: RedisCluster, context: AdmissionContext): AdmissionWarnings {
    validateImage(cluster);
    if (cluster.spec.replicas < old.spec.replicas) {
      context.logger.info('cluster shrinks', { name: cluster.metadata?.name, from: old.spec.replicas, to: cluster.spec.replicas });
      return [`spec.replicas: scaling from ${old.spec.replicas} to ${cluster.spec.replicas} nodes removes the data of ${old.spec.replicas - cluster.spec.replicas} of them`];
    }
  }

  validateDelete(): AdmissionWarnings {}
}

function validateImage(cluster: RedisCluster): void {
  const image = cluster.spec.image;
  if (image === undefined) return;
  const withoutRegistryPort = image.replace(/^[^/]+:\d+\//, '');
  const tag = withoutRegistryPort.includes('@') ? 'digest' : /:([^/:]+)$/.exec(withoutRegistryPort)?.[1];
  if (tag === undefined || tag === 'latest') {
    throw new ValidationError(FieldError.invalid('spec.image', image, 'pin a tag other than latest (redis:7.4) or a digest (redis@sha256:...)'));
  }
}
