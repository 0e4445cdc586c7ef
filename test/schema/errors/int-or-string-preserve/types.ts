// +groupName=errors.example.com
// +versionName=v1

import type { JSON, ObjectMeta } from 'kop/api';

export interface ThingSpec {
  /**
   * +kubebuilder:validation:XIntOrString
   */
  target?: JSON;
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
