// +groupName=forms.example.com
// +versionName=v1

import type { int, ObjectMeta } from 'kop/api';

/** Empty has no fields: controller-gen writes a bare object. */
export interface Empty {}

/** FormSpec holds the forms `kop import crd` writes for published CRDs. */
export interface FormSpec {
  /** count is a Go int: an integer without a format. */
  count?: int;
  /** counts are Go ints in a list. */
  counts?: int[];
  /** empty is an empty struct. */
  empty?: Empty;
  /**
   * bounded is an int with bounds.
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:validation:Maximum=10
   */
  bounded?: int;
}

/**
 * Form has metadata without `?`: it is required, as Go's ObjectMeta without omitempty.
 * +kubebuilder:object:root=true
 */
export interface Form {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: FormSpec;
}
