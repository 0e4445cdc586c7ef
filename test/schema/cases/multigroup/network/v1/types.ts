// +groupName=network.example.com

import type { ObjectMeta } from 'kop/api';

/** GatewaySpec is the desired state. */
export interface GatewaySpec {
  region?: string;
}

/**
 * Gateway lives in the network group.
 * +kubebuilder:object:root=true
 */
export interface Gateway {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: GatewaySpec;
}
