// +groupName=junctors.example.com
package v1

import (
	resource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Label is a short lower-case word.
// +kubebuilder:validation:MaxLength=63
type Label string

// Port is a TCP port.
// +kubebuilder:validation:Minimum=1
type Port int32

// Source names one place to read from.
// +kubebuilder:validation:ExactlyOneOf=configMap;secret
type Source struct {
	ConfigMap string `json:"configMap,omitempty"`
	Secret    string `json:"secret,omitempty"`
}

// SettingsSpec has defaults checked against constraints under allOf, one-of rules and core types.
type SettingsSpec struct {
	// ShortLabel is shorter than its type allows.
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:default=short
	ShortLabel Label `json:"shortLabel,omitempty"`
	// ServicePort is an unprivileged port.
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:default=8080
	ServicePort Port `json:"servicePort,omitempty"`
	// Source defaults to one of its fields.
	// +kubebuilder:default={configMap: "settings"}
	Source *Source `json:"source,omitempty"`
	// Memory is a quantity.
	// +kubebuilder:default="1Gi"
	Memory *resource.Quantity `json:"memory,omitempty"`
}

// Settings is the kind.
// +kubebuilder:object:root=true
type Settings struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec SettingsSpec `json:"spec,omitempty"`
}
