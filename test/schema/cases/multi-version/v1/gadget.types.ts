import type { int32, ObjectMeta } from 'kop/api';

/** GadgetSpec in v1. */
export interface GadgetSpec {
  /** Size of the gadget. */
  size?: int32;
  /** Color is new in v1. */
  color?: string;
}

/**
 * Gadget exists in several versions.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 * +kubebuilder:storageversion
 */
export interface Gadget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: GadgetSpec;
  status?: { ready?: boolean };
}
