// +groupName=embedded.example.com
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VolumeSetTemplate is an object template of the user's own.
type VolumeSetTemplate struct {
	// Metadata of the objects made from the template.
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              int32 `json:"size,omitempty"`
}

// VolumeSetSpec embeds object metadata, its own and a core type's.
type VolumeSetSpec struct {
	Template VolumeSetTemplate `json:"template,omitempty"`
	// Claim is a core type with embedded metadata.
	Claim corev1.PersistentVolumeClaimTemplate `json:"claim,omitempty"`
}

// VolumeSet keeps its own metadata a bare object, as controller-gen does with the option.
// +kubebuilder:object:root=true
type VolumeSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec VolumeSetSpec `json:"spec,omitempty"`
}
