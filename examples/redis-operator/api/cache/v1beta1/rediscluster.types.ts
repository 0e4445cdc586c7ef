import type { Condition, int32, ListMeta, ObjectMeta } from 'kop/api';

// v1beta1 of RedisCluster: the node count is `size` and the image moved under `redis`.
// Objects are stored as v1alpha1 (the hub); the operator's /convert webhook converts
// (src/webhooks/cache/v1beta1/rediscluster.conversion.ts).

/** RedisSettings describes the Redis server every node runs. */
export interface RedisSettings {
  /**
   * image is the Redis container image.
   * +optional
   */
  image?: string;
}

/** RedisClusterSpec is the Redis deployment its users ask for. */
export interface RedisClusterSpec {
  /**
   * size is the number of Redis nodes.
   * +kubebuilder:validation:Minimum=1
   */
  size: int32;
  /**
   * redis configures the Redis server.
   * +optional
   */
  redis?: RedisSettings;
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
 * +kubebuilder:subresource:status
 * +kubebuilder:subresource:scale:specpath=.spec.size,statuspath=.status.readyReplicas,selectorpath=.status.selector
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
