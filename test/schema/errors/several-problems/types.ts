// +groupName=errors.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

export interface ThingSpec {
  values?: any;
  ratio?: number;
  /** +kubebuilder:validation:Minimun=1 */
  replicas?: int32;
}

export interface OtherSpec {
  tags?: Set<string>;
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
  other?: OtherSpec;
}
