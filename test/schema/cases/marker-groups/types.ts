// +groupName=groups.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

// +kubebuilder:validation:MinProperties=1

// GadgetSpec has its markers in their own comment group, above its doc comment.
export interface GadgetSpec {
  // +kubebuilder:validation:Minimum=1
  // +kubebuilder:validation:Maximum=9
  // +kubebuilder:default=3

  // Size keeps its minimum, maximum and default although a blank line separates them from this doc.
  size?: int32;

  // +kubebuilder:validation:MaxLength=12

  name?: string;

  /**
   * +kubebuilder:validation:Enum=a;b
   */

  /** Mode is documented in a block comment below a block of markers. */
  mode?: string;
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Gadget is the root type, as Kubebuilder's scaffolds write it.
export interface Gadget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: GadgetSpec;
  status?: GadgetStatus;
}

// GadgetStatus is observed state.
export interface GadgetStatus {
  ready?: boolean;
}
