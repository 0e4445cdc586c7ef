// Helper types that are not an API version.
// +groupName=internal.example.com
// +kubebuilder:skip

import type { ObjectMeta } from 'kop/api';

/**
 * Hidden would be a kind, but its package is skipped.
 * +kubebuilder:object:root=true
 */
export interface Hidden {
  metadata?: ObjectMeta;
  spec?: { a?: string };
}
