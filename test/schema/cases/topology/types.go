// +groupName=topology.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Port is a named port.
type Port struct {
	Name string `json:"name"`
	// +kubebuilder:default=TCP
	Protocol string `json:"protocol,omitempty"`
	Port     int32  `json:"port"`
}

// Ports is a list keyed by name and protocol.
// +listType=map
// +listMapKey=name
// +listMapKey=protocol
type Ports []Port

// Coordinates change together.
// +structType=atomic
type Coordinates struct {
	X int32 `json:"x"`
	Y int32 `json:"y"`
}

// +structType=atomic
type Box struct {
	Width int32 `json:"width"`
}

// TopologySpec shows list, map and struct topology.
type TopologySpec struct {
	Ports Ports `json:"ports,omitempty"`
	// +listType=atomic
	Args []string `json:"args,omitempty"`
	// +listType=set
	Finalizers []string `json:"finalizers,omitempty"`
	// Containers keyed by name.
	// +listType=map
	// +listMapKey=name
	Containers []Port `json:"containers,omitempty"`
	// +mapType=atomic
	Selector map[string]string `json:"selector,omitempty"`
	// +mapType=granular
	Annotations map[string]string `json:"annotations,omitempty"`
	Position    *Coordinates      `json:"position,omitempty"`
	// +structType=granular
	Origin *Coordinates `json:"origin,omitempty"`
	Box    *Box         `json:"box,omitempty"`
}

// Topology is a kind with topology markers.
// +kubebuilder:object:root=true
type Topology struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec TopologySpec `json:"spec,omitempty"`
}
