// A controller-runtime v0.23 manager whose one controller reconciles the ConfigMaps (or, with
// --kind pods, the Pods) of one namespace and does nothing else: what bench/cache-bytes-per-object.mjs measures the cache of.
// --mode picks the cache: "default" (controller-runtime's defaults, managedFields kept),
// "strip" (cache.Options.DefaultTransform = cache.TransformStripManagedFields()) or "metadata"
// (For with builder.OnlyMetadata: PartialObjectMetadata objects). Once the cache has synced and
// --expect ConfigMaps were reconciled, it collects garbage, waits --settle and prints "ready";
// then it runs until it is signalled.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func main() {
	var namespace, mode, kind string
	var expect int64
	var settle time.Duration
	flag.StringVar(&namespace, "namespace", "default", "the one namespace cached")
	flag.StringVar(&mode, "mode", "default", "default, strip or metadata")
	flag.StringVar(&kind, "kind", "configmaps", "configmaps or pods")
	flag.Int64Var(&expect, "expect", 0, "objects to reconcile before reporting ready")
	flag.DurationVar(&settle, "settle", time.Second, "wait after the garbage collection")
	flag.Parse() // --kubeconfig is registered by controller-runtime's config package

	cacheOptions := cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}}
	if mode == "strip" {
		cacheOptions.DefaultTransform = cache.TransformStripManagedFields()
	}
	// Only the kind it caches, so the binary does not carry every built-in API group.
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		fmt.Fprintln(os.Stderr, "cannot build the scheme:", err)
		os.Exit(1)
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cacheOptions,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot create the manager:", err)
		os.Exit(1)
	}

	var seen sync.Map
	var reconciled atomic.Int64
	count := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		if _, loaded := seen.LoadOrStore(req.Name, struct{}{}); !loaded {
			reconciled.Add(1)
		}
		return reconcile.Result{}, nil
	})
	var object client.Object = &corev1.ConfigMap{}
	if kind == "pods" {
		object = &corev1.Pod{}
	}
	b := ctrl.NewControllerManagedBy(mgr).Named("cached")
	if mode == "metadata" {
		b = b.For(object, builder.OnlyMetadata)
	} else {
		b = b.For(object)
	}
	if err := b.Complete(count); err != nil {
		fmt.Fprintln(os.Stderr, "cannot create the controller:", err)
		os.Exit(1)
	}

	ctx := ctrl.SetupSignalHandler()
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		fmt.Fprintln(os.Stderr, "the cache did not sync")
		os.Exit(1)
	}
	for reconciled.Load() < expect {
		time.Sleep(50 * time.Millisecond)
	}
	goruntime.GC()
	time.Sleep(settle)
	fmt.Println("ready")
	if err := <-done; err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
		os.Exit(1)
	}
}
