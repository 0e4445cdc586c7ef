// +groupName=embedded.example.com
// +versionName=v1

import type { int32, ObjectMeta, PersistentVolumeClaimTemplate } from 'kop/api';

/** VolumeSetTemplate is an object template of the user's own. */
export interface VolumeSetTemplate {
  /** Metadata of the objects made from the template. */
  metadata?: ObjectMeta;
  size?: int32;
}

/** VolumeSetSpec embeds object metadata, its own and a core type's. */
export interface VolumeSetSpec {
  template?: VolumeSetTemplate;
  /** Claim is a core type with embedded metadata. */
  claim?: PersistentVolumeClaimTemplate;
}

/**
 * VolumeSet keeps its own metadata a bare object, as controller-gen does with the option.
 * +kubebuilder:object:root=true
 */
export interface VolumeSet {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: VolumeSetSpec;
}
