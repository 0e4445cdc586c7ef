// +groupName=errors.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

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
  /** Source defaults to one of its fields. */
  // +kubebuilder:default={configMap: "a", secret: "b"}
  source?: Source;
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
