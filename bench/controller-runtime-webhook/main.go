// The anchor for bench/webhook-create-latency.mjs: controller-runtime's webhook server serving
// the same defaulter and validator for the bench's Gizmo kind as the kop side (spec.color
// defaults to blue; spec.size above 10 is refused), through controller-runtime's
// CustomDefaulter/CustomValidator adapters, so both sides do the same decode, JSON-patch and
// encode work per review. It serves until SIGTERM on --host/--port with the certificate in
// --cert-dir (tls.crt, tls.key), the files kop/testing writes for its installed webhooks.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

var gizmoKind = schema.GroupVersionKind{Group: "test.kop.dev", Version: "v1", Kind: "Gizmo"}

type gizmoDefaulter struct{}

func (gizmoDefaulter) Default(_ context.Context, obj runtime.Object) error {
	gizmo := obj.(*unstructured.Unstructured)
	if _, found, _ := unstructured.NestedString(gizmo.Object, "spec", "color"); !found {
		return unstructured.SetNestedField(gizmo.Object, "blue", "spec", "color")
	}
	return nil
}

type gizmoValidator struct{}

func (gizmoValidator) ValidateCreate(_ context.Context, obj runtime.Object) (admission.Warnings, error) {
	gizmo := obj.(*unstructured.Unstructured)
	size, _, _ := unstructured.NestedInt64(gizmo.Object, "spec", "size")
	if size > 10 {
		return nil, field.ErrorList{field.Invalid(field.NewPath("spec", "size"), size, "must be at most 10")}.ToAggregate()
	}
	return nil, nil
}

func (gizmoValidator) ValidateUpdate(context.Context, runtime.Object, runtime.Object) (admission.Warnings, error) {
	return nil, nil
}

func (gizmoValidator) ValidateDelete(context.Context, runtime.Object) (admission.Warnings, error) {
	return nil, nil
}

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 9443, "port to listen on")
	certDir := flag.String("cert-dir", "", "folder with tls.crt and tls.key")
	mutatePath := flag.String("mutate-path", "/mutate-test-kop-dev-v1-gizmo", "the defaulter's path")
	validatePath := flag.String("validate-path", "/validate-test-kop-dev-v1-gizmo", "the validator's path")
	flag.Parse()

	scheme := runtime.NewScheme()
	gizmo := &unstructured.Unstructured{}
	gizmo.SetGroupVersionKind(gizmoKind)

	server := webhook.NewServer(webhook.Options{Host: *host, Port: *port, CertDir: *certDir})
	server.Register(*mutatePath, admission.WithCustomDefaulter(scheme, gizmo, gizmoDefaulter{}))
	server.Register(*validatePath, admission.WithCustomValidator(scheme, gizmo, gizmoValidator{}))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// "serving" once the port answers, so the bench's first request finds it listening.
	go func() {
		address := net.JoinHostPort(*host, strconv.Itoa(*port))
		for {
			// A whole handshake: a bare TCP probe would be logged as a failed one.
			if connection, err := tls.Dial("tcp", address, &tls.Config{InsecureSkipVerify: true}); err == nil {
				connection.Close()
				fmt.Println("serving")
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	if err := server.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
