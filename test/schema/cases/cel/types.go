// +groupName=rules.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Source names exactly one place to read from.
// +kubebuilder:validation:ExactlyOneOf=configMap;secret
// +kubebuilder:validation:AtMostOneOf=secret;inline
// +kubebuilder:validation:AtLeastOneOf=configMap;inline
// +kubebuilder:validation:XValidation:rule="!has(self.inline) || self.inline.size() < 100",message="inline data is limited",reason=FieldValueInvalid
type Source struct {
	ConfigMap string `json:"configMap,omitempty"`
	Secret    string `json:"secret,omitempty"`
	Inline    string `json:"inline,omitempty"`
	// Key is set once.
	// +k8s:immutable
	Key string `json:"key,omitempty"`
}

// RuleSpec shows CEL validation.
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas",fieldPath=".minReplicas"
type RuleSpec struct {
	MinReplicas int32 `json:"minReplicas"`
	MaxReplicas int32 `json:"maxReplicas"`
	// Source of the data.
	// +kubebuilder:validation:XValidation:rule="!has(self.secret) || self.secret.startsWith('s-')",messageExpression="'secret must start with s-, got ' + self.secret"
	Source *Source `json:"source,omitempty"`
	// ClusterName cannot change after creation.
	// +k8s:immutable
	// +required
	ClusterName string `json:"clusterName"`
	// Zone may be set once and not changed.
	// +k8s:immutable
	Zone string `json:"zone,omitempty"`
	// Threshold may only grow.
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",message="threshold may only grow",optionalOldSelf=true
	Threshold int32 `json:"threshold,omitempty"`
	// Hosts must each be lower case.
	// +kubebuilder:validation:items:XValidation:rule="self == self.lowerAscii()",message="hosts must be lower case"
	// +kubebuilder:validation:XValidation:rule="self.size() <= 10",message="at most 10 hosts"
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=253
	Hosts []string `json:"hosts,omitempty"`
}

// Rule is a kind with CEL rules.
// +kubebuilder:object:root=true
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 40",message="name is too long"
type Rule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RuleSpec `json:"spec"`
}
