// +groupName=infra.example.com
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePoolSpec is the desired pool.
type NodePoolSpec struct {
	// Size of the pool.
	Size        int32  `json:"size"`
	MachineType string `json:"machineType"`
}

// NodePoolStatus is the observed pool.
type NodePoolStatus struct {
	Phase      string `json:"phase,omitempty"`
	ReadyNodes int32  `json:"readyNodes,omitempty"`
}

// NodePool is a cluster-scoped pool of machines.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=pools,singular=pool,shortName=np;pool,categories=infra;all,scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.size`,description="Desired nodes"
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=".status.readyNodes",priority=1
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=".status.phase",format=byte
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
// +kubebuilder:selectablefield:JSONPath=".spec.machineType"
// +kubebuilder:selectablefield:JSONPath=`.status.phase`
// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved";"example.com/owner=infra",labels="app.kubernetes.io/part-of=infra"
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodePoolSpec   `json:"spec,omitempty"`
	Status NodePoolStatus `json:"status,omitempty"`
}

// NodePoolList is a list of NodePool.
// +kubebuilder:object:root=true
type NodePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodePool `json:"items"`
}
