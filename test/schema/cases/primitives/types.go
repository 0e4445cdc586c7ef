// +groupName=shapes.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Common fields shared by several specs.
type Common struct {
	// Paused stops reconciliation.
	Paused bool `json:"paused,omitempty"`
	// Priority orders work between objects.
	Priority int32 `json:"priority,omitempty"`
}

// Owner names who runs the thing.
type Owner struct {
	// Team that owns it.
	Team string `json:"team"`
}

// Name is a DNS label.
type Name string

// Tier picks a service level.
// +kubebuilder:validation:Enum=gold;silver;bronze
type Tier string

// Endpoint is a host and a port.
type Endpoint struct {
	// Host to connect to.
	Host string `json:"host"`
	Port int32  `json:"port,omitempty"`
}

// Contact has the fields of Owner and an email.
type Contact struct {
	Owner `json:",inline"`
	Email string `json:"email,omitempty"`
}

// WidgetSpec lists one field of every shape.
type WidgetSpec struct {
	Common `json:",inline"`
	// Title is free text.
	Title   string `json:"title"`
	Enabled bool   `json:"enabled,omitempty"`
	Count   int32  `json:"count,omitempty"`
	// Size is a 64-bit integer.
	Size int64 `json:"size,omitempty"`
	Name Name  `json:"name,omitempty"`
	// Tier of service; this doc replaces the type's.
	Tier      Tier                `json:"tier,omitempty"`
	OtherTier Tier                `json:"otherTier,omitempty"`
	Tags      []string            `json:"tags,omitempty"`
	Aliases   []string            `json:"aliases,omitempty"`
	Frozen    []string            `json:"frozen,omitempty"`
	Matrix    [][]int32           `json:"matrix,omitempty"`
	Limits    map[string]int32    `json:"limits,omitempty"`
	// Endpoints by name.
	Endpoints map[string]Endpoint `json:"endpoints,omitempty"`
	Primary   Endpoint            `json:"primary"`
	// Backup endpoint.
	Backup     *Endpoint  `json:"backup,omitempty"`
	Replicas   []Endpoint `json:"replicas,omitempty"`
	Contact    *Contact   `json:"contact,omitempty"`
	QuotedName string     `json:"quoted-name,omitempty"`
	// Note may be null.
	// +nullable
	Note *string `json:"note,omitempty"`
	// Optional in TypeScript with undefined spelled out.
	Hint string `json:"hint,omitempty"`
}

// WidgetStatus is what was observed.
type WidgetStatus struct {
	Ready bool `json:"ready"`
}

// Widget exercises every type mapping.
//
// A second paragraph of documentation.
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec    `json:"spec"`
	Status *WidgetStatus `json:"status,omitempty"`
}
