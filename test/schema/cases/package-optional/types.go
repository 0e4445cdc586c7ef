// +groupName=optional.example.com
// +kubebuilder:validation:Optional
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LooseSpec lives in a package whose fields default to optional.
type LooseSpec struct {
	// Plain is optional because of the package default.
	Plain string `json:"plain"`
	// +kubebuilder:validation:Required
	MustHave string `json:"mustHave,omitempty"`
	// +required
	AlsoRequired string `json:"alsoRequired,omitempty"`
	// +k8s:required
	K8sRequired int32 `json:"k8sRequired,omitempty"`
	// +optional
	ExplicitOptional string `json:"explicitOptional"`
	// +k8s:optional
	K8sOptional string `json:"k8sOptional"`
	// +kubebuilder:validation:Optional
	KubebuilderOptional string `json:"kubebuilderOptional"`
}

// Loose has optional fields by default.
// +kubebuilder:object:root=true
type Loose struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec LooseSpec `json:"spec"`
}
