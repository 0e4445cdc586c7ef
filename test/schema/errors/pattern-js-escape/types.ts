// +groupName=errors.example.com
// +versionName=v1

import type { ObjectMeta } from 'kop/api';

export interface ThingSpec {
  /**
   * A name written with a JavaScript escape.
   * +kubebuilder:validation:Pattern=`^caf\u00e9$`
   */
  name?: string;
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
