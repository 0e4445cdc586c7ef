// +groupName=errors
// +versionName=v1

import type { ObjectMeta } from 'kop/api';

export interface ThingSpec {
  a?: string;
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
