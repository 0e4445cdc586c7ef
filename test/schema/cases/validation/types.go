// +groupName=checks.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Port is a TCP port.
// +kubebuilder:validation:Minimum=1
// +kubebuilder:validation:Maximum=65535
type Port int32

// Label is a short lower-case word.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[a-z]+$`
type Label string

// Labels has between one and five entries.
// +kubebuilder:validation:MinItems=1
// +kubebuilder:validation:MaxItems=5
type Labels []Label

// Settings is a small map.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:MaxProperties=10
type Settings map[string]string

// CheckSpec carries every validation marker.
type CheckSpec struct {
	Port Port `json:"port,omitempty"`
	// Percent is exclusive at both ends.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:ExclusiveMaximum=true
	Percent int32 `json:"percent,omitempty"`
	// +kubebuilder:validation:MultipleOf=8
	BlockSize int64 `json:"blockSize,omitempty"`
	Label     Label `json:"label,omitempty"`
	// Field markers add to the type's.
	// +kubebuilder:validation:MaxLength=20
	ShortLabel Label    `json:"shortLabel,omitempty"`
	Labels     Labels   `json:"labels,omitempty"`
	Settings   Settings `json:"settings,omitempty"`
	// +kubebuilder:validation:Format=email
	Email string `json:"email,omitempty"`
	// +kubebuilder:validation:Enum=fast;slow
	Speed string `json:"speed,omitempty"`
	// +kubebuilder:validation:Enum=1;2;3
	Level int32 `json:"level,omitempty"`
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MinLength=3
	// +kubebuilder:validation:items:MaxLength=10
	// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
	// +kubebuilder:validation:items:Format=hostname
	// +kubebuilder:validation:items:Enum=alpha;beta;gamma
	Names []string `json:"names,omitempty"`
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=9
	// +kubebuilder:validation:items:ExclusiveMinimum=true
	// +kubebuilder:validation:items:ExclusiveMaximum=false
	// +kubebuilder:validation:items:MultipleOf=3
	Digits []int32 `json:"digits,omitempty"`
	// +kubebuilder:validation:items:MinItems=1
	// +kubebuilder:validation:items:MaxItems=2
	Pairs [][]string `json:"pairs,omitempty"`
	// +kubebuilder:validation:items:MinProperties=1
	// +kubebuilder:validation:items:MaxProperties=3
	Maps []map[string]string `json:"maps,omitempty"`
	// +kubebuilder:validation:MinProperties=2
	// +kubebuilder:validation:MaxProperties=4
	Extra map[string]int32 `json:"extra,omitempty"`
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date
	Day string `json:"day,omitempty"`
	// +kubebuilder:validation:items:Type=string
	Days []string `json:"days,omitempty"`
}

// Check is a kind with validated fields.
// +kubebuilder:object:root=true
type Check struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CheckSpec `json:"spec,omitempty"`
}
