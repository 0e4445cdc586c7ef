// +groupName=preserve.example.com
// +versionName=v1

import type { IntOrString, JSON, ObjectMeta, RawExtension } from 'kop/api';

/**
 * Settings keeps fields the schema does not list.
 * +kubebuilder:pruning:PreserveUnknownFields
 */
export interface Settings {
  /** Mode is the only known field. */
  mode?: string;
}

/**
 * Extra keeps unknown fields too.
 * +kubebuilder:validation:XPreserveUnknownFields
 */
export interface Extra {
  known?: string;
}

/** FreeformSpec shows schemaless and preserve-unknown-fields data. */
export interface FreeformSpec {
  /** Values is any JSON. */
  values?: JSON;
  /** Template is an embedded object. */
  template?: RawExtension;
  /**
   * Resource is an embedded Kubernetes object.
   * +kubebuilder:validation:EmbeddedResource
   * +kubebuilder:pruning:PreserveUnknownFields
   */
  resource?: RawExtension;
  /**
   * Manifest is an embedded object, marked the other way.
   * +kubebuilder:validation:XEmbeddedResource
   * +kubebuilder:validation:XPreserveUnknownFields
   */
  manifest?: RawExtension;
  settings?: Settings;
  extra?: Extra;
  // +kubebuilder:pruning:PreserveUnknownFields
  loose?: Extra;
  /**
   * Schema is not introspected.
   * +kubebuilder:validation:Schemaless
   * +kubebuilder:validation:Type=object
   * +kubebuilder:pruning:PreserveUnknownFields
   */
  schema?: JSON;
  port?: IntOrString;
  /**
   * Target is an int or a string with its own marker.
   * +kubebuilder:validation:Schemaless
   * +kubebuilder:validation:XIntOrString
   */
  target?: JSON;
  /**
   * Objects are embedded resources.
   * +kubebuilder:validation:items:XEmbeddedResource
   * +kubebuilder:validation:items:XPreserveUnknownFields
   */
  objects?: RawExtension[];
}

/**
 * Freeform is a kind with unknown fields.
 * +kubebuilder:object:root=true
 */
export interface Freeform {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: FreeformSpec;
}
