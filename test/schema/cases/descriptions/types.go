// +groupName=docs.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NoteSpec is documented with line comments. The description is long enough to be cut at a sentence end.
// +kubebuilder:validation:MinProperties=0
// A line after the marker still belongs to the description.
type NoteSpec struct {
	// Short text.
	Short string `json:"short,omitempty"`
	// Words follow words without any sentence end so the cut happens at a space near the limit
	Words string `json:"words,omitempty"`
	// First paragraph of a longer explanation.
	//
	// Second paragraph, after a blank line.
	//
	//
	// Third paragraph, after two blank lines, which become one.
	Paragraphs string `json:"paragraphs,omitempty"`
	// Averyveryveryveryveryveryveryveryveryveryveryveryveryverylongwordwithoutspaces
	Unbroken string `json:"unbroken,omitempty"`
	//   Indented doc text keeps its inner spacing.
	Spaced string `json:"spaced,omitempty"`
}

// Note has long descriptions, capped by maxDescriptionLength.
// +kubebuilder:object:root=true
type Note struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec NoteSpec `json:"spec,omitempty"`
}
