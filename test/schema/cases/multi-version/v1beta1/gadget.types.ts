import type { int32, ObjectMeta } from 'kop/api';

/** GadgetSpec in v1beta1. */
export interface GadgetSpec {
  /** Size of the gadget. */
  size?: int32;

}

/**
 * Gadget exists in several versions.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 * +kubebuilder:deprecatedversion:warning="example.com/v1beta1 Widget is deprecated; use v1"
 */
export interface Gadget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: GadgetSpec;
  status?: { ready?: boolean };
}
