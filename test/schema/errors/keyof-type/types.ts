// +groupName=errors.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

export interface Base { a?: string }

export interface ThingSpec {
  f?: keyof Base;
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
