// +groupName=storage.example.com

import type { ObjectMeta } from 'kop/api';

/** BucketSpec is the desired state. */
export interface BucketSpec {
  region?: string;
}

/**
 * Bucket lives in the storage group.
 * +kubebuilder:object:root=true
 */
export interface Bucket {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: BucketSpec;
}
