import type { Condition, int32, ListMeta, ObjectMeta } from 'kop/api';

/** RedisClusterSpec is the Redis deployment its users ask for. */
export interface RedisClusterSpec {
  /**
   * replicas is the number of Redis nodes.
   * +kubebuilder:validation:Minimum=1
   */
  replicas: int32;
  /**
   * image is the Redis container image.
   * +optional
   */
  image?: string;
}

/** RedisClusterStatus is what the operator last observed. */
export interface RedisClusterStatus {
  /**
   * readyReplicas is the number of Redis nodes that are ready.
   * +optional
   */
  readyReplicas?: int32;
  /**
   * selector is the label selector of the Redis pods, for the scale subresource.
   * +optional
   */
  selector?: string;
  /**
   * conditions describe the state of the cluster; Ready is True when every node is ready.
   * +listType=map
   * +listMapKey=type
   * +optional
   */
  conditions?: Condition[];
}

/**
 * RedisCluster is a Redis deployment managed by the operator.
 * +kubebuilder:object:root=true
 * +kubebuilder:storageversion
 * +kubebuilder:subresource:status
 * +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.readyReplicas,selectorpath=.status.selector
 */
export interface RedisCluster {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ObjectMeta;
  spec: RedisClusterSpec;
  /** +optional */
  status?: RedisClusterStatus;
}

/**
 * RedisClusterList is what listing redisclusters returns.
 * +kubebuilder:object:root=true
 */
export interface RedisClusterList {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ListMeta;
  items: RedisCluster[];
}
