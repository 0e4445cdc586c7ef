// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import {
  FieldError,
  ValidationError,
  type AdmissionContext,
  type AdmissionWarnings,
  type Manager,
  type Validator,
} from 'kop/runtime';
import { redisClusterType } from '../../../../api/cache/v1/rediscluster.client.js';
import type { RedisCluster } from '../../../../api/cache/v1/rediscluster.types.js';

// The apiserver calls this webhook on every create and update of a RedisCluster v1, after
// defaulting; `kop generate manifests` turns the marker into config/webhook/manifests.yaml.
// +kubebuilder:webhook:path=/validate-cache-example-com-v1-rediscluster,mutating=false,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=redisclusters,verbs=create;update,versions=v1,name=vrediscluster-v1.kb.io,admissionReviewVersions=v1

/**
 * Refuses RedisCluster objects the CRD's schema cannot rule out (rules that need code, or other
 * objects). Throw a ValidationError listing every bad field to refuse; return warnings
 * (strings kubectl prints) to accept with a caution. Prefer schema markers and CEL
 * (`+kubebuilder:validation:XValidation`) for checks of one object: they need no webhook.
 */
export class RedisClusterValidator implements Validator<RedisCluster> {
  /** Registers the webhook: the manager serves it on /validate-cache-example-com-v1-rediscluster. */
  setupWithManager(manager: Manager): void {
    manager.webhook(redisClusterType).withValidator(this).complete();
  }

  validateCreate(object: RedisCluster, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating create', { name: object.metadata?.name });
    return validateRedisCluster(object);
  }

  validateUpdate(oldObject: RedisCluster, newObject: RedisCluster, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating update', { name: newObject.metadata?.name });
    return validateRedisCluster(newObject);
  }

  // Not called unless the marker's verbs include delete.
  validateDelete(object: RedisCluster, context: AdmissionContext): AdmissionWarnings {
    context.logger.debug('validating delete', { name: object.metadata?.name });
  }
}

/** The checks every create and update passes; an example rule to replace with your own. */
function validateRedisCluster(object: RedisCluster): AdmissionWarnings {
  const errors: FieldError[] = [];
  if (object.spec.foo === '') errors.push(FieldError.invalid('spec.foo', object.spec.foo, 'must not be empty'));
  if (errors.length > 0) throw new ValidationError(errors);
}
