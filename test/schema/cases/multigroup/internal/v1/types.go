// Helper types that are not an API version.
// +groupName=internal.example.com
// +kubebuilder:skip
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HiddenSpec is the desired state.
type HiddenSpec struct {
	A string `json:"a,omitempty"`
}

// Hidden would be a kind, but its package is skipped.
// +kubebuilder:object:root=true
type Hidden struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec HiddenSpec `json:"spec,omitempty"`
}
