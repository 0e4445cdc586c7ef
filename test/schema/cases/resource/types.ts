// +groupName=infra.example.com
// +versionName=v1beta1

import type { int32, ObjectMeta } from 'kop/api';

/** NodePoolSpec is the desired pool. */
export interface NodePoolSpec {
  /** Size of the pool. */
  size: int32;
  machineType: string;
}

/** NodePoolStatus is the observed pool. */
export interface NodePoolStatus {
  phase?: string;
  readyNodes?: int32;
}

/**
 * NodePool is a cluster-scoped pool of machines.
 * +kubebuilder:object:root=true
 * +kubebuilder:resource:path=pools,singular=pool,shortName=np;pool,categories=infra;all,scope=Cluster
 * +kubebuilder:subresource:status
 * +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.size`,description="Desired nodes"
 * +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=".status.readyNodes",priority=1
 * +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=".status.phase",format=byte
 * +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
 * +kubebuilder:selectablefield:JSONPath=".spec.machineType"
 * +kubebuilder:selectablefield:JSONPath=`.status.phase`
 * +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved";"example.com/owner=infra",labels="app.kubernetes.io/part-of=infra"
 */
export interface NodePool {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: NodePoolSpec;
  status?: NodePoolStatus;
}
