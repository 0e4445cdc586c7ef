// A controller-runtime operator for the RedisCluster kind that `kop init` + `kop create api
// --group cache --version v1alpha1 --kind RedisCluster` scaffold, doing the writes kop's
// scaffolded reconciler does: read the object (from the manager's cache, the default client),
// run the finalizer removal when it is being deleted, add the finalizer, and set a Ready
// condition with the observed generation through /status when it changed. The manager keeps
// controller-runtime's defaults (cache-backed client, default work-queue rate limiter, no
// client-side QPS limit); flags as a Kubebuilder main.go has them. Used by
// bench/operator-vs-controller-runtime.mjs, which builds it with `go build`.
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
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// groupVersion is where redisclusters are served (the CRD kop generates for the bench project).
var groupVersion = schema.GroupVersion{Group: "cache.example.com", Version: "v1alpha1"}

const finalizerName = "cache.example.com/finalizer"

// RedisClusterSpec mirrors the scaffolded spec, so an Update keeps every field it holds.
type RedisClusterSpec struct {
	Foo string `json:"foo,omitempty"`
}

// RedisClusterStatus mirrors the scaffolded status.
type RedisClusterStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RedisCluster is the root type.
type RedisCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RedisClusterSpec   `json:"spec"`
	Status            RedisClusterStatus `json:"status,omitempty"`
}

// RedisClusterList is what a list returns.
type RedisClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RedisCluster `json:"items"`
}

// DeepCopyInto copies every reference-typed field, so the cache's object is never shared.
func (in *RedisCluster) DeepCopyInto(out *RedisCluster) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

// DeepCopy returns a copy that shares nothing with in.
func (in *RedisCluster) DeepCopy() *RedisCluster {
	if in == nil {
		return nil
	}
	out := new(RedisCluster)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *RedisCluster) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies the list and each item.
func (in *RedisClusterList) DeepCopyInto(out *RedisClusterList) {
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]RedisCluster, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy that shares nothing with in.
func (in *RedisClusterList) DeepCopy() *RedisClusterList {
	if in == nil {
		return nil
	}
	out := new(RedisClusterList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *RedisClusterList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// RedisClusterReconciler does what kop's scaffolded reconciler does.
type RedisClusterReconciler struct {
	client.Client
}

// Reconcile brings one RedisCluster to Ready at its current generation.
func (r *RedisClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var object RedisCluster
	if err := r.Get(ctx, req.NamespacedName, &object); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	if !object.DeletionTimestamp.IsZero() {
		if controllerutil.ContainsFinalizer(&object, finalizerName) {
			// The cleanup would run here; the scaffold's does nothing either.
			controllerutil.RemoveFinalizer(&object, finalizerName)
			if err := r.Update(ctx, &object); err != nil {
				return ctrl.Result{}, err
			}
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
		if err := r.Status().Update(ctx, &object); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

func main() {
	var metricsAddr, probeAddr string
	var leaderElect bool
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", `address of the metrics endpoint, "0" to disable`)
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	flag.BoolVar(&leaderElect, "leader-elect", false, "elect a leader so only one replica reconciles")
	logOptions := zap.Options{Development: true}
	logOptions.BindFlags(flag.CommandLine)
	flag.Parse() // --kubeconfig is registered by controller-runtime's config package
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&logOptions)))
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(groupVersion, &RedisCluster{}, &RedisClusterList{})
	metav1.AddToGroupVersion(scheme, groupVersion)

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
		LeaderElection:         leaderElect,
		LeaderElectionID:       "bench.cache.example.com",
	})
	if err != nil {
		log.Error(err, "cannot create the manager")
		os.Exit(1)
	}
	if err := ctrl.NewControllerManagedBy(mgr).For(&RedisCluster{}).Named("rediscluster").Complete(&RedisClusterReconciler{Client: mgr.GetClient()}); err != nil {
		log.Error(err, "cannot create the controller")
		os.Exit(1)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		log.Error(err, "cannot add the health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		log.Error(err, "cannot add the ready check")
		os.Exit(1)
	}
	log.Info("starting manager")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped with an error")
		os.Exit(1)
	}
}
