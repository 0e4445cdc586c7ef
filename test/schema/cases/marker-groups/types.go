// +groupName=groups.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:validation:MinProperties=1

// GadgetSpec has its markers in their own comment group, above its doc comment.
type GadgetSpec struct {
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=9
	// +kubebuilder:default=3

	// Size keeps its minimum, maximum and default although a blank line separates them from this doc.
	Size int32 `json:"size,omitempty"`

	// +kubebuilder:validation:MaxLength=12

	Name string `json:"name,omitempty"`

	// +kubebuilder:validation:Enum=a;b

	// Mode is documented in a block comment below a block of markers.
	Mode string `json:"mode,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Gadget is the root type, as Kubebuilder's scaffolds write it.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec   `json:"spec,omitempty"`
	Status GadgetStatus `json:"status,omitempty"`
}

// GadgetStatus is observed state.
type GadgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}
