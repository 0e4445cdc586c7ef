// +groupName=settings.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Setting holds plain key-value data, as a ConfigMap does: a kind needs no spec.
// +kubebuilder:object:root=true
type Setting struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// data maps keys to values.
	Data      map[string]string `json:"data,omitempty"`
	Immutable *bool             `json:"immutable,omitempty"`
}

// ProbeStatus is what a prober last saw.
type ProbeStatus struct {
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Probe has only a status, which a controller writes.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster
type Probe struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Status ProbeStatus `json:"status,omitempty"`
}

// SettingList is a list of Setting.
// +kubebuilder:object:root=true
type SettingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Setting `json:"items"`
}

// ProbeList is a list of Probe.
// +kubebuilder:object:root=true
type ProbeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Probe `json:"items"`
}
