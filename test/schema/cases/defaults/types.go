// +groupName=defaults.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Policy says what happens on delete.
type Policy struct {
	// Action to take.
	Action       string `json:"action"`
	GraceSeconds int32  `json:"graceSeconds,omitempty"`
}

// DefaultedSpec shows every form of default.
type DefaultedSpec struct {
	// +kubebuilder:default=3
	Replicas int32 `json:"replicas,omitempty"`
	// +kubebuilder:default=info
	LogLevel string `json:"logLevel,omitempty"`
	// +kubebuilder:default="quoted value"
	Greeting string `json:"greeting,omitempty"`
	// +kubebuilder:default=true
	Enabled bool `json:"enabled,omitempty"`
	// +kubebuilder:default={action: "delete", graceSeconds: 30}
	Policy *Policy `json:"policy,omitempty"`
	// +kubebuilder:default={80,443}
	Ports []int32 `json:"ports,omitempty"`
	// +kubebuilder:default={a,b}
	Names []string `json:"names,omitempty"`
	// +kubebuilder:default={}
	Extras []string `json:"extras,omitempty"`
	// +default="Cluster"
	Scope string `json:"scope,omitempty"`
	// +default={"action":"retain"}
	Retain *Policy `json:"retain,omitempty"`
	// +default=[1,2,3]
	Steps []int32 `json:"steps,omitempty"`
	// +default={"team":"core"}
	Labels map[string]string `json:"labels,omitempty"`
	// Example and documentation markers.
	// +kubebuilder:example="nginx:1.27"
	// +kubebuilder:title=Image
	// +kubebuilder:externalDocs:url="https://example.com/images",description="Image naming"
	Image string `json:"image,omitempty"`
	// +kubebuilder:example=42
	Answer int32 `json:"answer,omitempty"`
}

// Defaulted is a kind with defaults.
// +kubebuilder:object:root=true
// +kubebuilder:title=Defaulted object
// +kubebuilder:externalDocs:url="https://example.com/defaulted"
type Defaulted struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +kubebuilder:default={}
	Spec DefaultedSpec `json:"spec,omitempty"`
}
