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
  /** ShortLabel is shorter than its type allows. */
  // +kubebuilder:validation:MaxLength=20
  // +kubebuilder:default=muchtoolongforashortlabel
  shortLabel?: Label;
  /** ServicePort is an unprivileged port. */
  // +kubebuilder:validation:Minimum=1024
  // +kubebuilder:default=80
  servicePort?: Port;
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
