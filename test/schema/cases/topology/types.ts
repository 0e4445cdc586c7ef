// +groupName=topology.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

/** Port is a named port. */
export interface Port {
  name: string;
  /** +kubebuilder:default=TCP */
  protocol?: string;
  port: int32;
}

/**
 * Ports is a list keyed by name and protocol.
 * +listType=map
 * +listMapKey=name
 * +listMapKey=protocol
 */
export type Ports = Port[];

/**
 * Coordinates change together.
 * +structType=atomic
 */
export interface Coordinates {
  x: int32;
  y: int32;
}

/** TopologySpec shows list, map and struct topology. */
export interface TopologySpec {
  ports?: Ports;
  // +listType=atomic
  args?: string[];
  // +listType=set
  finalizers?: string[];
  /**
   * Containers keyed by name.
   * +listType=map
   * +listMapKey=name
   */
  containers?: Port[];
  // +mapType=atomic
  selector?: Record<string, string>;
  // +mapType=granular
  annotations?: Record<string, string>;
  position?: Coordinates;
  // +structType=granular
  origin?: Coordinates;
  /** +structType=atomic */
  box?: { width: int32 };
}

/**
 * Topology is a kind with topology markers.
 * +kubebuilder:object:root=true
 */
export interface Topology {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: TopologySpec;
}
