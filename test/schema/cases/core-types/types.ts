// +groupName=apps.example.com
// +versionName=v1

import type {
  Affinity,
  EnvVar,
  LocalObjectReference,
  ObjectMeta,
  ObjectReference,
  PodTemplateSpec,
  ResourceRequirements,
  Toleration,
  int32,
} from 'kop/api';

/** WorkloadSpec embeds Kubernetes core types. */
export interface WorkloadSpec {
  replicas?: int32;
  /** Template of the pods. */
  template: PodTemplateSpec;
  resources?: ResourceRequirements;
  env?: EnvVar[];
  tolerations?: Toleration[];
  affinity?: Affinity;
  imagePullSecrets?: LocalObjectReference[];
  /** Owner points at another object. */
  owner?: ObjectReference;
}

/**
 * Workload runs pods from a template.
 * +kubebuilder:object:root=true
 */
export interface Workload {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: WorkloadSpec;
}
