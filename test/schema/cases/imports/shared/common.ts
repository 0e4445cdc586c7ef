/** Endpoint is shared by several API versions. */
export interface Endpoint {
  /** +kubebuilder:validation:MaxLength=253 */
  host: string;
  port?: int32;
}

import type { int32 } from 'kop/api';

export type { Endpoint as Target };
