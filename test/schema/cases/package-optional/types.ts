// +groupName=optional.example.com
// +versionName=v1
// +kubebuilder:validation:Optional

import type { int32, ObjectMeta } from 'kop/api';

/** LooseSpec lives in a package whose fields default to optional. */
export interface LooseSpec {
  /** Plain is optional because of the package default. */
  plain: string;
  // +kubebuilder:validation:Required
  mustHave?: string;
  // +required
  alsoRequired?: string;
  // +k8s:required
  k8sRequired?: int32;
  // +optional
  explicitOptional: string;
  // +k8s:optional
  k8sOptional: string;
  // +kubebuilder:validation:Optional
  kubebuilderOptional: string;
}

/**
 * Loose has optional fields by default.
 * +kubebuilder:object:root=true
 */
export interface Loose {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: LooseSpec;
}
