// +groupName=preserve.example.com
package v1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Settings keeps fields the schema does not list.
// +kubebuilder:pruning:PreserveUnknownFields
type Settings struct {
	// Mode is the only known field.
	Mode string `json:"mode,omitempty"`
}

// Extra keeps unknown fields too.
// +kubebuilder:validation:XPreserveUnknownFields
type Extra struct {
	Known string `json:"known,omitempty"`
}

// FreeformSpec shows schemaless and preserve-unknown-fields data.
type FreeformSpec struct {
	// Values is any JSON.
	Values *apiextensionsv1.JSON `json:"values,omitempty"`
	// Template is an embedded object.
	Template *runtime.RawExtension `json:"template,omitempty"`
	// Resource is an embedded Kubernetes object.
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	Resource *runtime.RawExtension `json:"resource,omitempty"`
	// Manifest is an embedded object, marked the other way.
	// +kubebuilder:validation:XEmbeddedResource
	// +kubebuilder:validation:XPreserveUnknownFields
	Manifest *runtime.RawExtension `json:"manifest,omitempty"`
	Settings *Settings             `json:"settings,omitempty"`
	Extra    *Extra                `json:"extra,omitempty"`
	// +kubebuilder:pruning:PreserveUnknownFields
	Loose *Extra `json:"loose,omitempty"`
	// Schema is not introspected.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Schema *apiextensionsv1.JSON `json:"schema,omitempty"`
	Port   *intstr.IntOrString   `json:"port,omitempty"`
	// Target is an int or a string with its own marker.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:XIntOrString
	Target *apiextensionsv1.JSON `json:"target,omitempty"`
	// Objects are embedded resources.
	// +kubebuilder:validation:items:XEmbeddedResource
	// +kubebuilder:validation:items:XPreserveUnknownFields
	Objects []runtime.RawExtension `json:"objects,omitempty"`
}

// Freeform is a kind with unknown fields.
// +kubebuilder:object:root=true
type Freeform struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec FreeformSpec `json:"spec,omitempty"`
}
