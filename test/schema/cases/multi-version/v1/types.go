// +groupName=versions.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GadgetSpec in v1.
type GadgetSpec struct {
	// Size of the gadget.
	Size int32 `json:"size,omitempty"`
	// Color is new in v1.
	Color string `json:"color,omitempty"`
}

type GadgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

// Gadget exists in several versions.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec   `json:"spec,omitempty"`
	Status GadgetStatus `json:"status,omitempty"`
}
