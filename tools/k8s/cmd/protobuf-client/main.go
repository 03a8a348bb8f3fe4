// Command protobuf-client is a small client-go program that speaks only protobuf
// (ContentType and Accept application/vnd.kubernetes.protobuf): create, get, list, update,
// patch, watch and delete of a PersistentVolume and a PersistentVolumeClaim, and with -apply a
// server-side apply through an apply configuration. It checks that every answer came back as
// protobuf, prints one line per step and exits non-zero on the first failure. The tests run it
// against the embedded API server and the real kube-apiserver alike.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

const protobuf = "application/vnd.kubernetes.protobuf"

// contentTypes records the media type of every answer, to prove the server answered protobuf.
type contentTypes struct {
	mu    sync.Mutex
	other []string
	next  http.RoundTripper
}

func (c *contentTypes) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil && !strings.HasPrefix(resp.Header.Get("Content-Type"), protobuf) {
		c.mu.Lock()
		c.other = append(c.other, fmt.Sprintf("%s %s: %s", req.Method, req.URL.Path, resp.Header.Get("Content-Type")))
		c.mu.Unlock()
	}
	return resp, err
}

func fail(step string, err error) {
	fmt.Printf("FAIL %s: %v\n", step, err)
	os.Exit(1)
}

func ok(step string) { fmt.Printf("ok %s\n", step) }

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the server")
	name := flag.String("name", "protobuf-client", "name of the objects it creates")
	apply := flag.Bool("apply", false, "also run the server-side apply step")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig", err)
	}
	cfg.ContentType = protobuf
	cfg.AcceptContentTypes = protobuf
	recorder := &contentTypes{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { recorder.next = rt; return recorder }
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fail("client", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run(ctx, client, *name, *apply)
	if len(recorder.other) > 0 {
		fail("content types", fmt.Errorf("answers that were not protobuf: %s", strings.Join(recorder.other, "; ")))
	}
	ok("all answers protobuf")
}

func volume(name string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "protobuf-client"}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + name}},
		},
	}
}

func run(ctx context.Context, client kubernetes.Interface, name string, apply bool) {
	pvs := client.CoreV1().PersistentVolumes()
	list, err := pvs.List(ctx, metav1.ListOptions{})
	if err != nil {
		fail("list", err)
	}
	ok("list")
	w, err := pvs.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, FieldSelector: "metadata.name=" + name})
	if err != nil {
		fail("watch", err)
	}
	defer w.Stop()
	created, err := pvs.Create(ctx, volume(name), metav1.CreateOptions{})
	if err != nil {
		fail("create", err)
	}
	if created.Spec.Capacity.Storage().String() != "1Gi" || created.UID == "" {
		fail("create", fmt.Errorf("unexpected object %+v", created))
	}
	ok("create")
	expectEvent(w, watch.Added, name)
	got, err := pvs.Get(ctx, name, metav1.GetOptions{})
	if err != nil || got.Spec.HostPath == nil || got.Spec.HostPath.Path != "/tmp/"+name {
		fail("get", fmt.Errorf("%v %+v", err, got))
	}
	ok("get")
	got.Labels["tier"] = "gold"
	updated, err := pvs.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || updated.Labels["tier"] != "gold" || updated.ResourceVersion == got.ResourceVersion {
		fail("update", fmt.Errorf("%v %+v", err, updated))
	}
	ok("update")
	expectEvent(w, watch.Modified, name)
	patched, err := pvs.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"annotations":{"note":"patched"}}}`), metav1.PatchOptions{})
	if err != nil || patched.Annotations["note"] != "patched" {
		fail("patch", fmt.Errorf("%v %+v", err, patched))
	}
	ok("patch")
	expectEvent(w, watch.Modified, name)
	if apply {
		serverSideApply(ctx, client, name)
		expectEvent(w, watch.Modified, name)
	}
	if _, err := pvs.Get(ctx, name+"-missing", metav1.GetOptions{}); err == nil || !strings.Contains(err.Error(), "not found") {
		fail("get missing", fmt.Errorf("want a NotFound Status, got %v", err))
	}
	ok("get missing")
	if err := pvs.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &created.UID}}); err != nil {
		fail("delete", err)
	}
	ok("delete")
	// The pv-protection finalizer holds the volume until nothing uses it: the delete is a
	// MODIFIED event with a deletionTimestamp, and removing the finalizer deletes it.
	if terminating := expectEvent(w, watch.Modified, name); terminating.DeletionTimestamp == nil {
		fail("delete", fmt.Errorf("no deletionTimestamp on %+v", terminating.ObjectMeta))
	}
	if _, err := pvs.Patch(ctx, name, types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/finalizers"}]`), metav1.PatchOptions{}); err != nil {
		fail("remove finalizer", err)
	}
	expectEvent(w, watch.Deleted, name)
}

func serverSideApply(ctx context.Context, client kubernetes.Interface, name string) {
	cfg := corev1apply.PersistentVolume(name).WithLabels(map[string]string{"applied": "yes"})
	applied, err := client.CoreV1().PersistentVolumes().Apply(ctx, cfg, metav1.ApplyOptions{FieldManager: "protobuf-client", Force: true})
	if err != nil || applied.Labels["applied"] != "yes" {
		fail("apply", fmt.Errorf("%v %+v", err, applied))
	}
	ok("apply")
}

func expectEvent(w watch.Interface, want watch.EventType, name string) *corev1.PersistentVolume {
	select {
	case ev, open := <-w.ResultChan():
		if !open {
			fail("watch "+string(want), fmt.Errorf("the watch ended"))
		}
		pv, isPV := ev.Object.(*corev1.PersistentVolume)
		if ev.Type != want || !isPV || pv.Name != name {
			fail("watch "+string(want), fmt.Errorf("got %s %T %+v", ev.Type, ev.Object, ev.Object))
		}
		ok("watch " + strings.ToLower(string(want)))
		return pv
	case <-time.After(20 * time.Second):
		fail("watch "+string(want), fmt.Errorf("no event"))
	}
	return nil
}
