// +groupName=apps.example.com
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkloadSpec embeds Kubernetes core types.
type WorkloadSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
	// Template of the pods.
	Template         corev1.PodTemplateSpec        `json:"template"`
	Resources        *corev1.ResourceRequirements  `json:"resources,omitempty"`
	Env              []corev1.EnvVar               `json:"env,omitempty"`
	Tolerations      []corev1.Toleration           `json:"tolerations,omitempty"`
	Affinity         *corev1.Affinity              `json:"affinity,omitempty"`
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// Owner points at another object.
	Owner *corev1.ObjectReference `json:"owner,omitempty"`
}

// Workload runs pods from a template.
// +kubebuilder:object:root=true
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WorkloadSpec `json:"spec,omitempty"`
}
