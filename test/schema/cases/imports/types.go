// +groupName=imports.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Endpoint is shared by several API versions.
type Endpoint struct {
	// +kubebuilder:validation:MaxLength=253
	Host string `json:"host"`
	Port int32  `json:"port,omitempty"`
}

// RouteSpec uses types of another file, imported in each way TypeScript allows.
type RouteSpec struct {
	// named import
	Primary Endpoint `json:"primary"`
	// namespace import
	Secondary *Endpoint `json:"secondary,omitempty"`
	// a name the other file re-exports under an alias
	Target *Endpoint `json:"target,omitempty"`
	// export * from an index file
	FromIndex *Endpoint `json:"fromIndex,omitempty"`
	// export { X as Y } from another file
	Backend *Endpoint `json:"backend,omitempty"`
}

// Route is a kind.
// +kubebuilder:object:root=true
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec RouteSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Route `json:"items"`
}
