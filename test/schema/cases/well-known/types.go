// +groupName=known.example.com
package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type Template struct {
	Metadata *metav1.ObjectMeta `json:"metadata,omitempty"`
}

// ScheduleSpec uses the well-known value types.
type ScheduleSpec struct {
	// StartAt is a timestamp.
	StartAt *metav1.Time      `json:"startAt,omitempty"`
	Precise *metav1.MicroTime `json:"precise,omitempty"`
	// Every is a Go duration such as 1h30m.
	Every  *metav1.Duration   `json:"every,omitempty"`
	Memory *resource.Quantity `json:"memory,omitempty"`
	// Storage has its own limits on top of the quantity pattern.
	// +kubebuilder:validation:XValidation:rule="quantity(self).isGreaterThan(quantity('1Gi'))",message="at least 1Gi"
	Storage        *resource.Quantity  `json:"storage,omitempty"`
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// +kubebuilder:default="25%"
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
	// Namespaced references to kop/api types work too.
	Timeout  *metav1.Duration             `json:"timeout,omitempty"`
	Limits   map[string]resource.Quantity `json:"limits,omitempty"`
	Template *Template                    `json:"template,omitempty"`
}

// ScheduleStatus reports conditions.
type ScheduleStatus struct {
	// Conditions of the schedule.
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	LastRun    *metav1.Time       `json:"lastRun,omitempty"`
}

// Schedule uses well-known types.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Schedule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ScheduleSpec   `json:"spec,omitempty"`
	Status ScheduleStatus `json:"status,omitempty"`
}
