// +groupName=checks.example.com
// +versionName=v1

import type { int32, int64, ObjectMeta } from 'kop/api';

/**
 * Port is a TCP port.
 * +kubebuilder:validation:Minimum=1
 * +kubebuilder:validation:Maximum=65535
 */
export type Port = int32;

/**
 * Label is a short lower-case word.
 * +kubebuilder:validation:MinLength=1
 * +kubebuilder:validation:MaxLength=63
 * +kubebuilder:validation:Pattern=`^[a-z]+$`
 */
export type Label = string;

/**
 * Labels has between one and five entries.
 * +kubebuilder:validation:MinItems=1
 * +kubebuilder:validation:MaxItems=5
 */
export type Labels = Label[];

/**
 * Settings is a small map.
 * +kubebuilder:validation:MinProperties=1
 * +kubebuilder:validation:MaxProperties=10
 */
export type Settings = Record<string, string>;

/** CheckSpec carries every validation marker. */
export interface CheckSpec {
  port?: Port;
  /**
   * Percent is exclusive at both ends.
   * +kubebuilder:validation:Minimum=0
   * +kubebuilder:validation:Maximum=100
   * +kubebuilder:validation:ExclusiveMinimum=true
   * +kubebuilder:validation:ExclusiveMaximum=true
   */
  percent?: int32;
  // +kubebuilder:validation:MultipleOf=8
  blockSize?: int64;
  label?: Label;
  /** Field markers add to the type's. */
  // +kubebuilder:validation:MaxLength=20
  shortLabel?: Label;
  labels?: Labels;
  settings?: Settings;
  // +kubebuilder:validation:Format=email
  email?: string;
  // +kubebuilder:validation:Enum=fast;slow
  speed?: string;
  // +kubebuilder:validation:Enum=1;2;3
  level?: int32;
  // +kubebuilder:validation:MinItems=2
  // +kubebuilder:validation:MaxItems=4
  // +kubebuilder:validation:items:MinLength=3
  // +kubebuilder:validation:items:MaxLength=10
  // +kubebuilder:validation:items:Pattern=`^[a-z]+$`
  // +kubebuilder:validation:items:Format=hostname
  // +kubebuilder:validation:items:Enum=alpha;beta;gamma
  names?: string[];
  // +kubebuilder:validation:items:Minimum=1
  // +kubebuilder:validation:items:Maximum=9
  // +kubebuilder:validation:items:ExclusiveMinimum=true
  // +kubebuilder:validation:items:ExclusiveMaximum=false
  // +kubebuilder:validation:items:MultipleOf=3
  digits?: int32[];
  // +kubebuilder:validation:items:MinItems=1
  // +kubebuilder:validation:items:MaxItems=2
  pairs?: string[][];
  // +kubebuilder:validation:items:MinProperties=1
  // +kubebuilder:validation:items:MaxProperties=3
  maps?: Record<string, string>[];
  // +kubebuilder:validation:MinProperties=2
  // +kubebuilder:validation:MaxProperties=4
  extra?: Record<string, int32>;
  // +kubebuilder:validation:Type=string
  // +kubebuilder:validation:Format=date
  day?: string;
  // +kubebuilder:validation:items:Type=string
  days?: string[];
}

/**
 * Check is a kind with validated fields.
 * +kubebuilder:object:root=true
 */
export interface Check {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: CheckSpec;
}
