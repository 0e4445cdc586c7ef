// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { AdmissionContext, Defaulter, Manager } from 'kop/runtime';
import { redisClusterType } from '../../../../api/cache/v1/rediscluster.client.js';
import type { RedisCluster } from '../../../../api/cache/v1/rediscluster.types.js';

// The apiserver calls this webhook on every create and update of a RedisCluster v1, before
// validation; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/mutate-cache-example-com-v1-rediscluster,mutating=true,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=redisclusters,verbs=create;update,versions=v1,name=mrediscluster-v1.kb.io,admissionReviewVersions=v1

/**
 * Fills in the fields of a RedisCluster its user left out. Change `object` in place; kop sends the
 * apiserver a JSON patch of the difference. Defaults that never depend on other objects are
 * better declared in the types file (`+kubebuilder:default=`), where the CRD applies them.
 */
export class RedisClusterDefaulter implements Defaulter<RedisCluster> {
  /** Registers the webhook: the manager serves it on /mutate-cache-example-com-v1-rediscluster. */
  setupWithManager(manager: Manager): void {
    manager.webhook(redisClusterType).withDefaulter(this).complete();
  }

  default(object: RedisCluster, context: AdmissionContext): void {
    context.logger.debug('defaulting', { name: object.metadata?.name });
    // An example default: replace it with the defaults of a RedisCluster.
    object.spec.foo ??= 'default';
  }
}
