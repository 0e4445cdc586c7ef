// +groupName=storage.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BucketSpec is the desired state.
type BucketSpec struct {
	Region string `json:"region,omitempty"`
}

// Bucket lives in the storage group.
// +kubebuilder:object:root=true
type Bucket struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BucketSpec `json:"spec,omitempty"`
}
