// +groupName=forms.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Empty has no fields: controller-gen writes a bare object.
type Empty struct{}

// FormSpec holds the forms `kop import crd` writes for published CRDs.
type FormSpec struct {
	// count is a Go int: an integer without a format.
	Count int `json:"count,omitempty"`
	// counts are Go ints in a list.
	Counts []int `json:"counts,omitempty"`
	// empty is an empty struct.
	Empty *Empty `json:"empty,omitempty"`
	// bounded is an int with bounds.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	Bounded int `json:"bounded,omitempty"`
}

// Form has metadata without `?`: it is required, as Go's ObjectMeta without omitempty.
// +kubebuilder:object:root=true
type Form struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`

	Spec FormSpec `json:"spec,omitempty"`
}
