// +groupName=defaults.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

/** Policy says what happens on delete. */
export interface Policy {
  /** Action to take. */
  action: string;
  graceSeconds?: int32;
}

/** DefaultedSpec shows every form of default. */
export interface DefaultedSpec {
  // +kubebuilder:default=3
  replicas?: int32;
  // +kubebuilder:default=info
  logLevel?: string;
  // +kubebuilder:default="quoted value"
  greeting?: string;
  // +kubebuilder:default=true
  enabled?: boolean;
  // +kubebuilder:default={action: "delete", graceSeconds: 30}
  policy?: Policy;
  // +kubebuilder:default={80,443}
  ports?: int32[];
  // +kubebuilder:default={a,b}
  names?: string[];
  // +kubebuilder:default={}
  extras?: string[];
  // +default="Cluster"
  scope?: string;
  // +default={"action":"retain"}
  retain?: Policy;
  // +default=[1,2,3]
  steps?: int32[];
  // +default={"team":"core"}
  labels?: Record<string, string>;
  /**
   * Example and documentation markers.
   * +kubebuilder:example="nginx:1.27"
   * +kubebuilder:title=Image
   * +kubebuilder:externalDocs:url="https://example.com/images",description="Image naming"
   */
  image?: string;
  // +kubebuilder:example=42
  answer?: int32;
}

/**
 * Defaulted is a kind with defaults.
 * +kubebuilder:object:root=true
 * +kubebuilder:title=Defaulted object
 * +kubebuilder:externalDocs:url="https://example.com/defaulted"
 */
export interface Defaulted {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  /** +kubebuilder:default={} */
  spec?: DefaultedSpec;
}
