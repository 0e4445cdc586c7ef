// +groupName=cache.example.com
// +versionName=v1alpha1

import type { Condition, ObjectMeta, ListMeta, Quantity, int32 } from 'kop/api';

/** How the cluster distributes keys. */
export type RedisMode = 'standalone' | 'cluster' | 'sentinel';

/** Shard is one shard of the key space. */
export interface Shard {
  /** Name of the shard. */
  name: string;
  /**
   * Weight of the shard when placing keys.
   * +kubebuilder:validation:Minimum=0
   * +kubebuilder:validation:Maximum=100
   */
  weight?: int32;
}

/** RedisClusterSpec defines the desired state of a RedisCluster. */
// +kubebuilder:validation:XValidation:rule="self.mode != 'standalone' || self.replicas == 1",message="standalone mode runs exactly one replica"
export interface RedisClusterSpec {
  /**
   * Replicas is the number of Redis nodes.
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:default=3
   */
  replicas?: int32;
  /** Mode selects how keys are distributed. */
  mode: RedisMode;
  /**
   * Version of Redis to run, e.g. 7.2.
   * +kubebuilder:validation:Pattern=`^\d+\.\d+(\.\d+)?$`
   */
  version: string;
  /** Memory is the memory limit of each node. */
  memory?: Quantity;
  /** Labels added to every pod. */
  podLabels?: Record<string, string>;
  /**
   * Shards lists the shards of the key space.
   * +listType=map
   * +listMapKey=name
   */
  shards?: Shard[];
}

/** RedisClusterStatus defines the observed state of a RedisCluster. */
export interface RedisClusterStatus {
  /** Replicas is the number of ready nodes. */
  replicas?: int32;
  /** Selector is the label selector of the pods, for the scale subresource. */
  selector?: string;
  /**
   * Conditions of the cluster.
   * +listType=map
   * +listMapKey=type
   */
  conditions?: Condition[];
}

/**
 * RedisCluster is a Redis cluster managed by the operator.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 * +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
 */
export interface RedisCluster {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: RedisClusterSpec;
  status?: RedisClusterStatus;
}

/**
 * RedisClusterList is a list of RedisCluster.
 * +kubebuilder:object:root=true
 */
export interface RedisClusterList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: RedisCluster[];
}
