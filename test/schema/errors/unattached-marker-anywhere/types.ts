// +groupName=errors.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

export enum Mode {
  // +kubebuilder:validation:MaxLength=3
  A = 'a',
}

export interface ThingSpec {
  replicas?: int32; // +kubebuilder:validation:Minimum=1
  list?: Array<
    // +kubebuilder:validation:MaxLength=5
    string
  >;
  mode?: Mode;
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
