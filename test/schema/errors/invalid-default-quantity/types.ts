// +groupName=errors.example.com
// +versionName=v1

import type { int32, ObjectMeta, Quantity } from 'kop/api';

/**
 * Label is a short lower-case word.
 * +kubebuilder:validation:MaxLength=63
 */
export type Label = string;

/**
 * Port is a TCP port.
 * +kubebuilder:validation:Minimum=1
 */
export type Port = int32;

/**
 * Source names one place to read from.
 * +kubebuilder:validation:ExactlyOneOf=configMap;secret
 */
export interface Source {
  configMap?: string;
  secret?: string;
}

/** SettingsSpec has defaults checked against constraints under allOf, one-of rules and core types. */
export interface SettingsSpec {
  /** Memory is a quantity. */
  // +kubebuilder:default="lots"
  memory?: Quantity;
}

/**
 * Settings is the kind.
 * +kubebuilder:object:root=true
 */
export interface Settings {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: SettingsSpec;
}
