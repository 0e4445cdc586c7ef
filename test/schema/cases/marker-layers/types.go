// +groupName=layers.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Name is a shared name.
// +kubebuilder:validation:MaxLength=10
type Name string

// Mode is an enum type.
// +kubebuilder:validation:Enum=a;b
type Mode string

// ShortName narrows Name.
// +kubebuilder:validation:MaxLength=5
// +kubebuilder:validation:MinLength=1
type ShortName Name

// PlainName is Name under another name.
type PlainName Name

// OnlyA narrows Mode.
// +kubebuilder:validation:Enum=a
type OnlyA Mode

// ShortNames is a list.
// +kubebuilder:validation:MaxItems=3
type ShortNames []ShortName

// Inner is a struct.
type Inner struct {
	A string `json:"a,omitempty"`
}

// Item has a rule.
// +kubebuilder:validation:XValidation:rule="has(self.a)",message="type rule"
type Item struct {
	A string `json:"a,omitempty"`
}

// Base has fields.
type Base struct {
	// base doc
	Shared  string `json:"shared,omitempty"`
	BaseOnly int32 `json:"baseOnly,omitempty"`
}

// LayeredSpec layers field markers over the markers of named types.
type LayeredSpec struct {
	Base `json:",inline"`
	// first name.
	// +kubebuilder:validation:MinLength=2
	First Name `json:"first,omitempty"`
	Second Name `json:"second,omitempty"`
	// +kubebuilder:validation:MaxLength=5
	Third Name `json:"third,omitempty"`
	Mode Mode `json:"mode,omitempty"`
	// +kubebuilder:validation:Enum=b
	Mode2 Mode `json:"mode2,omitempty"`
	// +kubebuilder:validation:items:MaxItems=3
	Nested [][]string `json:"nested,omitempty"`
	MapOfArrays map[string][]string `json:"mapOfArrays,omitempty"`
	// +nullable
	NullStruct *Inner `json:"nullStruct,omitempty"`
	// +nullable
	NullMap map[string]string `json:"nullMap,omitempty"`
	// +nullable
	NullArray []string `json:"nullArray,omitempty"`
	// +optional
	// +kubebuilder:default=5
	OptDefault int32 `json:"optDefault,omitempty"`
	// +kubebuilder:default=7
	ReqDefault int32 `json:"reqDefault"`
	// +kubebuilder:validation:Type=string
	Typed int32 `json:"typed,omitempty"`
	// +kubebuilder:title=Hello
	// +kubebuilder:externalDocs:url="https://x.example.com",description=more
	Titled string `json:"titled,omitempty"`
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self == oldSelf.value()",message="immutable once set",optionalOldSelf=true
	Cel string `json:"cel,omitempty"`
	// +kubebuilder:pruning:PreserveUnknownFields
	Preserved *Inner `json:"preserved,omitempty"`
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	Schemaless *Inner `json:"schemaless,omitempty"`
	// +kubebuilder:validation:items:Enum=x;y
	ItemsEnum []Mode `json:"itemsEnum,omitempty"`
	// +kubebuilder:validation:items:MaxLength=5
	ItemsMax []Name `json:"itemsMax,omitempty"`
	// +kubebuilder:validation:items:MinLength=2
	ItemsMin []Name `json:"itemsMin,omitempty"`
	// +kubebuilder:validation:items:XValidation:rule="has(self.a) || true",message="field rule"
	ItemsRule []Item `json:"itemsRule,omitempty"`
	// +kubebuilder:validation:items:Format=email
	ItemsFormat []Name `json:"itemsFormat,omitempty"`
	ShortName ShortName `json:"shortName,omitempty"`
	PlainName PlainName `json:"plainName,omitempty"`
	OnlyA OnlyA `json:"onlyA,omitempty"`
	ShortNames ShortNames `json:"shortNames,omitempty"`
}

// Layered is a kind.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=zz;aa,categories=zeta;alpha
// +kubebuilder:printcolumn:name=Zed,type=string,JSONPath=.spec.first,priority=1
// +kubebuilder:printcolumn:name=Age,type=date,JSONPath=.metadata.creationTimestamp
// +kubebuilder:printcolumn:name=Num,type=integer,JSONPath=.spec.baseOnly,format=int32,description=the num
type Layered struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec LayeredSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true
type LayeredList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Layered `json:"items"`
}
