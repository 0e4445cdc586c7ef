// +groupName=errors.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

export interface ThingSpec {
  // +kubebuilder:validation:Minimum=1

  // A note about the next field, far from its markers.

  // Replicas of the thing.
  replicas?: int32;
}

/**
 * Thing is the kind.
 * +kubebuilder:object:root=true
 */
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ThingSpec;
}
