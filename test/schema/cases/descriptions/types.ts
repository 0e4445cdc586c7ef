// +groupName=docs.example.com
// +versionName=v1

import type { ObjectMeta } from 'kop/api';

// NoteSpec is documented with line comments. The description is long enough to be cut at a sentence end.
// +kubebuilder:validation:MinProperties=0
// A line after the marker still belongs to the description.
export interface NoteSpec {
  /**
   * Short text.
   */
  short?: string;
  /**
   * Words follow words without any sentence end so the cut happens at a space near the limit
   */
  words?: string;
  /**
   * First paragraph of a longer explanation.
   *
   * Second paragraph, after a blank line.
   *
   *
   * Third paragraph, after two blank lines, which become one.
   */
  paragraphs?: string;
  // Averyveryveryveryveryveryveryveryveryveryveryveryveryverylongwordwithoutspaces
  unbroken?: string;
  /**   Indented doc text keeps its inner spacing.   */
  spaced?: string;
}

/**
 * Note has long descriptions, capped by maxDescriptionLength.
 * +kubebuilder:object:root=true
 */
export interface Note {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: NoteSpec;
}
