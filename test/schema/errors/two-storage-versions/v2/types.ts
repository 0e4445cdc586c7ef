// +groupName=errors.example.com

import type { ObjectMeta } from 'kop/api';

export interface ThingSpec {
  name?: string;
}

/**
 * Thing is the kind.
 * +kubebuilder:object:root=true
 * +kubebuilder:storageversion
 */
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ThingSpec;
}
