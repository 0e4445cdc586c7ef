// +groupName=errors.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type ThingSpec struct {
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=0
	Replicas int32 `json:"replicas,omitempty"`
}

// Thing is the kind.
// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
