// +groupName=floats.example.com
// +versionName=v1

import type { ObjectMeta } from 'kop/api';

/** GaugeSpec uses floating-point numbers (allowed with allowDangerousTypes). */
export interface GaugeSpec {
  /** Ratio between 0 and 1. */
  // +kubebuilder:validation:Minimum=0
  // +kubebuilder:validation:Maximum=1
  ratio?: number;
  // +kubebuilder:validation:MultipleOf=0.25
  // +kubebuilder:validation:ExclusiveMinimum=true
  // +kubebuilder:validation:Minimum=0.5
  step?: number;
  // +kubebuilder:default=1.5
  scale?: number;
  weights?: number[];
}

/**
 * Gauge has float fields.
 * +kubebuilder:object:root=true
 */
export interface Gauge {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: GaugeSpec;
}
