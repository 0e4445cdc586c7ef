// +groupName=errors.example.com
// +versionName=v1

import type { ObjectMeta } from 'kop/api';

export interface ThingSpec {
  /**
   * A name that must not start with "kube".
   * +kubebuilder:validation:Pattern=`^(?!kube)[a-z]+$`
   */
  name?: string;
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
