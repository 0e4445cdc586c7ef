// +groupName=floats.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GaugeSpec uses floating-point numbers (allowed with allowDangerousTypes).
type GaugeSpec struct {
	// Ratio between 0 and 1.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	Ratio float64 `json:"ratio,omitempty"`
	// +kubebuilder:validation:MultipleOf=0.25
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:Minimum=0.5
	Step float64 `json:"step,omitempty"`
	// +kubebuilder:default=1.5
	Scale   float64   `json:"scale,omitempty"`
	Weights []float64 `json:"weights,omitempty"`
}

// Gauge has float fields.
// +kubebuilder:object:root=true
type Gauge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GaugeSpec `json:"spec,omitempty"`
}
