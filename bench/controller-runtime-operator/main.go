// The anchor for bench/operator-vs-controller-runtime.mjs: a controller-runtime operator that does
// what kop's scaffolded RedisCluster reconciler does, with controller-runtime's defaults: read the
// object through the manager's (cached) client, add a finalizer, then set a Ready condition with
// the observed generation through the status subresource.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var groupVersion = schema.GroupVersion{Group: "cache.example.com", Version: "v1alpha1"}

const finalizerName = "cache.example.com/finalizer"

// RedisClusterSpec and RedisClusterStatus mirror the types `kop create api` scaffolds.
type RedisClusterSpec struct {
	Foo string `json:"foo,omitempty"`
}

type RedisClusterStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

type RedisCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RedisClusterSpec   `json:"spec,omitempty"`
	Status            RedisClusterStatus `json:"status,omitempty"`
}

type RedisClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RedisCluster `json:"items"`
}

// DeepCopy methods, as controller-gen's object generator would write them.
func (in *RedisCluster) DeepCopyInto(out *RedisCluster) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

func (in *RedisCluster) DeepCopy() *RedisCluster {
	if in == nil {
		return nil
	}
	out := new(RedisCluster)
	in.DeepCopyInto(out)
	return out
}

func (in *RedisCluster) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *RedisClusterList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(RedisClusterList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]RedisCluster, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

type reconciler struct {
	client.Client
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var object RedisCluster
	if err := r.Get(ctx, req.NamespacedName, &object); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !object.DeletionTimestamp.IsZero() {
		if controllerutil.RemoveFinalizer(&object, finalizerName) {
			return ctrl.Result{}, r.Update(ctx, &object)
		}
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(&object, finalizerName) {
		if err := r.Update(ctx, &object); err != nil {
			return ctrl.Result{}, err
		}
	}
	changed := meta.SetStatusCondition(&object.Status.Conditions, metav1.Condition{
		Type:               "Ready",
		Status:             metav1.ConditionTrue,
		Reason:             "Reconciled",
		Message:            fmt.Sprintf("RedisCluster is reconciled at generation %d", object.Generation),
		ObservedGeneration: object.Generation,
	})
	if changed {
		return ctrl.Result{}, r.Status().Update(ctx, &object)
	}
	return ctrl.Result{}, nil
}

func main() {
	var metricsAddr, probeAddr string
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "metrics address, 0 to disable")
	flag.StringVar(&probeAddr, "health-probe-bind-address", "0", "probe address, 0 to disable")
	flag.Parse() // --kubeconfig is registered by controller-runtime's config package

	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(groupVersion, &RedisCluster{}, &RedisClusterList{})
	metav1.AddToGroupVersion(scheme, groupVersion)

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := ctrl.NewControllerManagedBy(mgr).For(&RedisCluster{}).Named("rediscluster").Complete(&reconciler{Client: mgr.GetClient()}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("starting manager")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
