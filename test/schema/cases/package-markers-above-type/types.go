package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +groupName=regroup.example.com
// +kubebuilder:validation:Optional
// +kubebuilder:validation:MinProperties=1

// WidgetSpec has one comment group above its doc that mixes package markers (the group name
// and the package's optional default) with one of its own (MinProperties), as controller-gen
// sorts them marker by marker.
type WidgetSpec struct {
	// Size is optional through the package default.
	Size int32 `json:"size"`
	// +required
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:validation:Optional

// Widget is the root type; the package default written above it applies to the package.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}
