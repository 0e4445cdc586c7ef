// +groupName=paths.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RouteSpec says which paths a Route serves. A star-slash ends a doc comment, so it is written
// escaped: `/api/*/v2` reads as the glob it is.
type RouteSpec struct {
	// match is a glob such as `/static/*/index.html`; kop reads `*/` as a star-slash.
	// +kubebuilder:default="/static/*/index.html"
	// +kubebuilder:example="/docs/*/latest"
	// +optional
	Match string `json:"match,omitempty"`
	// A line comment holds a star-slash as it is, */ and *\/ alike.
	Note string `json:"note,omitempty"`
	// prefixes lists globs that must end in a star-slash.
	// +kubebuilder:validation:items:Pattern=`\*/$`
	// +optional
	Prefixes []string `json:"prefixes,omitempty"`
}

// Route maps paths such as /docs/*/latest to a backend.
// +kubebuilder:object:root=true
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RouteSpec `json:"spec,omitempty"`
}
