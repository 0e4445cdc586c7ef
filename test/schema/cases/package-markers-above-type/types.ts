// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

// +groupName=regroup.example.com
// +kubebuilder:validation:Optional
// +kubebuilder:validation:MinProperties=1

// WidgetSpec has one comment group above its doc that mixes package markers (the group name
// and the package's optional default) with one of its own (MinProperties), as controller-gen
// sorts them marker by marker.
export interface WidgetSpec {
  /** Size is optional through the package default. */
  size: int32;
  // +required
  name?: string;
}

// +kubebuilder:object:root=true
// +kubebuilder:validation:Optional

// Widget is the root type; the package default written above it applies to the package.
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: WidgetSpec;
}
