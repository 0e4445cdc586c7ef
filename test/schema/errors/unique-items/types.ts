// +groupName=errors.example.com
// +versionName=v1

import type { ObjectMeta } from 'kop/api';

export interface ThingSpec {
  // +kubebuilder:validation:UniqueItems=true
  names?: string[];
  // +kubebuilder:validation:items:UniqueItems=true
  pairs?: string[][];
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
