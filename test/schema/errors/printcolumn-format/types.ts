// +groupName=errors.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

export interface ThingSpec {
  a?: string;
  n?: int32;
  l?: string[];
  o?: { x?: string };
}

/**
 * Thing is the kind.
 * +kubebuilder:object:root=true
 * +kubebuilder:printcolumn:name=A,type=string,JSONPath=.spec.a,format=weird
 */
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ThingSpec;
}
