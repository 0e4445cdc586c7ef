// +groupName=errors.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

/** TreeNode holds children of its own type. */
export interface TreeNode {
  name: string;
  children?: TreeNode[];
}

export interface ThingSpec {
  root?: TreeNode;
}

/**
 * Thing is the kind.
 * +kubebuilder:object:root=true
 */
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ThingSpec;
}

