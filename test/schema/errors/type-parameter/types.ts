// +groupName=errors.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

export interface Box<T = string> { value?: T }

export interface ThingSpec {
  box?: Box;
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
