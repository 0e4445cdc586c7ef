// +groupName=cache.example.com
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// How the cluster distributes keys.
// +kubebuilder:validation:Enum=standalone;cluster;sentinel
type RedisMode string

// Shard is one shard of the key space.
type Shard struct {
	// Name of the shard.
	Name string `json:"name"`
	// Weight of the shard when placing keys.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Weight int32 `json:"weight,omitempty"`
}

// RedisClusterSpec defines the desired state of a RedisCluster.
// +kubebuilder:validation:XValidation:rule="self.mode != 'standalone' || self.replicas == 1",message="standalone mode runs exactly one replica"
type RedisClusterSpec struct {
	// Replicas is the number of Redis nodes.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=3
	Replicas *int32 `json:"replicas,omitempty"`
	// Mode selects how keys are distributed.
	Mode RedisMode `json:"mode"`
	// Version of Redis to run, e.g. 7.2.
	// +kubebuilder:validation:Pattern=`^\d+\.\d+(\.\d+)?$`
	Version string `json:"version"`
	// Memory is the memory limit of each node.
	Memory *resource.Quantity `json:"memory,omitempty"`
	// Labels added to every pod.
	PodLabels map[string]string `json:"podLabels,omitempty"`
	// Shards lists the shards of the key space.
	// +listType=map
	// +listMapKey=name
	Shards []Shard `json:"shards,omitempty"`
}

// RedisClusterStatus defines the observed state of a RedisCluster.
type RedisClusterStatus struct {
	// Replicas is the number of ready nodes.
	Replicas int32 `json:"replicas,omitempty"`
	// Selector is the label selector of the pods, for the scale subresource.
	Selector string `json:"selector,omitempty"`
	// Conditions of the cluster.
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RedisCluster is a Redis cluster managed by the operator.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
type RedisCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RedisClusterSpec   `json:"spec,omitempty"`
	Status RedisClusterStatus `json:"status,omitempty"`
}

// RedisClusterList is a list of RedisCluster.
// +kubebuilder:object:root=true
type RedisClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RedisCluster `json:"items"`
}
