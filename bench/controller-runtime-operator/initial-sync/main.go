// The initial sync of a controller-runtime v0.23 cache, for bench/initial-sync-rss.mjs: a manager
// with controller-runtime's defaults (or TransformStripManagedFields with -strip-managed-fields)
// caching the ConfigMaps (or, with -kind pods, the Pods) of one namespace. It starts the manager,
// waits until the informer has synced, and prints one JSON line: milliseconds from start to
// synced, objects cached, the process's CPU time (user+system) by then, and its peak and current
// resident set (VmHWM, VmRSS of /proc/self/status).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

func main() {
	namespace := flag.String("namespace", "sync", "namespace whose ConfigMaps are cached")
	strip := flag.Bool("strip-managed-fields", false, "cache with TransformStripManagedFields")
	kind := flag.String("kind", "configmaps", "configmaps or pods")
	flag.Parse()
	var object client.Object = &corev1.ConfigMap{}
	var list client.ObjectList = &corev1.ConfigMapList{}
	if *kind == "pods" {
		object, list = &corev1.Pod{}, &corev1.PodList{}
	}

	started := time.Now()
	cacheOptions := cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}}
	if *strip {
		cacheOptions.DefaultTransform = cache.TransformStripManagedFields()
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cacheOptions,
	})
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := mgr.GetCache().GetInformer(ctx, object); err != nil {
		fail(err)
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fail(err)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		fail(fmt.Errorf("cache did not sync"))
	}
	synced := time.Since(started)
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	cpu := time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
	if err := mgr.GetCache().List(ctx, list); err != nil {
		fail(err)
	}
	out, _ := json.Marshal(map[string]any{
		"syncedMs": synced.Milliseconds(),
		"cpuMs":    cpu.Milliseconds(),
		"objects":  meta.LenList(list),
		"peak":     statusBytes("VmHWM"),
		"rss":      statusBytes("VmRSS"),
	})
	fmt.Println(string(out))
}

// statusBytes reads one kB field of /proc/self/status, in bytes.
func statusBytes(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
