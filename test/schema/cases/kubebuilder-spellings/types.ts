// +groupName=spellings.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

/** PolicySpec uses controller-gen's alternate value syntax. */
export interface PolicySpec {
  /**
   * Concurrency is what the CronJob tutorial defaults with `:=`.
   * +kubebuilder:default:=Allow
   * +kubebuilder:validation:Enum=Allow;Forbid;Replace
   */
  concurrency?: string;
  // +kubebuilder:validation:Minimum:=1
  // +kubebuilder:default=3
  replicas?: int32;
}

/**
 * Policy says its storage version twice, which controller-gen reads as once.
 * +kubebuilder:object:root=true
 * +kubebuilder:storageversion
 * +kubebuilder:storageversion
 */
export interface Policy {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: PolicySpec;
}
