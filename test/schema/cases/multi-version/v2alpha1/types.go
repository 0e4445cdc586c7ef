// +groupName=versions.example.com
package v2alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GadgetSpec in v2alpha1.
type GadgetSpec struct {
	// Size of the gadget.
	Size int32 `json:"size,omitempty"`

}

type GadgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

// Gadget exists in several versions.
// +kubebuilder:object:root=true
// +kubebuilder:skipversion
//
// Unlike gadget.types.ts, no +kubebuilder:subresource:status here: controller-gen applies a
// type's markers in Go map order, and when skipversion comes first the status marker fails
// ("status subresource applied to version not in CRD"), about one run in eight. The version
// is skipped, so the marker changes nothing in the CRD either way.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec   `json:"spec,omitempty"`
	Status GadgetStatus `json:"status,omitempty"`
}
