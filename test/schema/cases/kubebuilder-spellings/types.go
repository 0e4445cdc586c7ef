// +groupName=spellings.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PolicySpec uses controller-gen's alternate value syntax.
type PolicySpec struct {
	// Concurrency is what the CronJob tutorial defaults with `:=`.
	// +kubebuilder:default:=Allow
	// +kubebuilder:validation:Enum=Allow;Forbid;Replace
	Concurrency string `json:"concurrency,omitempty"`
	// +kubebuilder:validation:Minimum:=1
	// +kubebuilder:default=3
	Replicas int32 `json:"replicas,omitempty"`
}

// Policy says its storage version twice, which controller-gen reads as once.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:storageversion
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PolicySpec `json:"spec,omitempty"`
}
