// +groupName=errors.example.com

import type { ObjectMeta } from 'kop/api';

/** +kubebuilder:object:root=true */
export interface Thing {
  metadata?: ObjectMeta;
  spec?: { a?: string };
}
