// Command csi-mock serves Kubernetes' own CSI mock driver (the service the e2e suite tests the
// sidecars and the kubelet against, k8s.io/kubernetes/test/e2e/storage/drivers/csi-test/mock/
// service, started through its driver package) on a unix socket, and logs every gRPC call.
//
// Usage:
//
//	csi-mock --socket PATH [--name DRIVER] [--node-expansion-required] [--enable-topology]
//	         [--disable-attach] [--disable-controller-expansion] [--disable-online-expansion]
//	         [--max-volumes-per-node N] [--keep-mock-volumes]
//
// PATH's directory is created when missing and a stale socket at PATH removed before listening. SIGTERM or SIGINT stop it gracefully: new
// calls are refused with Unavailable, calls in flight finish (at most 10 s), the socket is
// removed and the process exits 0. The driver keeps its volumes in memory only, so it outlives
// restarts of its clients (a provisioner) and forgets everything when it stops.
//
// The mock's New() seeds three volumes ("Mock Volume 1..3", ids 1-3) and three snapshots of them
// ("Mock Snapshot 1..3", ids 1-3). They are deleted before serving, so ListVolumes and
// ListSnapshots start empty and everything they list was created by a client;
// --keep-mock-volumes keeps them. The mock uses the driver name as its node ID (NodeGetInfo)
// and answers GetCapacity with one fixed number whatever the topology.
//
// Snapshots: the mock serves CreateSnapshot, DeleteSnapshot, ListSnapshots and volumes from a
// snapshot or a volume (CLONE_VOLUME), but leaves every snapshot's size_bytes at 0. This main
// fills it in with the source volume's capacity when the snapshot was cut (CreateSnapshot and
// ListSnapshots alike), as a real driver reports it, so a VolumeSnapshot gets a restoreSize.
//
// Log: one JSON object per line on stdout for EVERY call, written when the call returns, in
// exactly this shape and key order:
//
//	{"time":"<RFC3339Nano, UTC>","method":"/csi.v1.Controller/CreateVolume",
//	 "request":{...},"response":{...}|null,"code":"OK"|"NotFound"|...,"error":"msg"|null,
//	 "durationMs":1.25}
//
// time is when the call arrived; lines are written in the order calls return. request and
// response are protojson with lowerCamelCase field names, unpopulated fields omitted, enums
// by name and 64-bit integers as JSON strings ("capacityBytes":"1073741824"); response is null
// when the call failed. Volume IDs are decimal counters from "4" on (1-3 are the seeded ones). Every value of every `secrets` map, at any
// depth, is replaced by "REDACTED" (the keys stay). code is the gRPC status code's name
// (google.golang.org/grpc/codes), error the status message or null. Diagnostics go to stderr;
// the first stderr line is `csi-mock: serving DRIVER on PATH`, printed once the socket accepts.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"k8s.io/kubernetes/test/e2e/storage/drivers/csi-test/driver"
	"k8s.io/kubernetes/test/e2e/storage/drivers/csi-test/mock/service"
)

// drainTimeout bounds how long a graceful stop waits for calls in flight.
const drainTimeout = 10 * time.Second

func main() {
	socket := flag.String("socket", "", "unix socket to serve on (required; a stale one is removed)")
	keep := flag.Bool("keep-mock-volumes", false, "keep the three volumes the mock seeds itself with")
	var cfg service.Config
	flag.StringVar(&cfg.DriverName, "name", service.Name, "driver name (GetPluginInfo); also the mock's node ID")
	flag.BoolVar(&cfg.NodeExpansionRequired, "node-expansion-required", false, "ControllerExpandVolume answers node_expansion_required=true and the node offers EXPAND_VOLUME")
	flag.BoolVar(&cfg.EnableTopology, "enable-topology", false, "offer VOLUME_ACCESSIBILITY_CONSTRAINTS; volumes are accessible in "+service.TopologyKey+"="+service.TopologyValue)
	flag.BoolVar(&cfg.DisableAttach, "disable-attach", false, "do not offer PUBLISH_UNPUBLISH_VOLUME")
	flag.BoolVar(&cfg.DisableControllerExpansion, "disable-controller-expansion", false, "do not offer EXPAND_VOLUME on the controller")
	flag.BoolVar(&cfg.DisableOnlineExpansion, "disable-online-expansion", false, "offer OFFLINE volume expansion only")
	flag.Int64Var(&cfg.AttachLimit, "max-volumes-per-node", 0, "NodeGetInfo's max_volumes_per_node and the attach limit (0: none)")
	flag.Parse()
	if *socket == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: csi-mock --socket PATH [--name DRIVER] [switches]; see --help")
		os.Exit(2)
	}
	if err := run(*socket, cfg, *keep); err != nil {
		fmt.Fprintf(os.Stderr, "csi-mock: %v\n", err)
		os.Exit(1)
	}
}

func run(socket string, cfg service.Config, keepSeeded bool) error {
	svc := service.New(cfg)
	if !keepSeeded {
		if err := dropSeededSnapshots(svc); err != nil {
			return err
		}
		if err := dropSeededVolumes(svc); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(socket), 0o755); err != nil {
		return err
	}
	if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing stale socket: %w", err)
	}
	listener, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	defer os.Remove(socket)

	calls := newCallLog(os.Stdout)
	d := driver.NewCSIDriver(&driver.CSIDriverServers{Controller: newSizedSnapshots(svc), Identity: svc, Node: svc})
	if err := d.Start(listener, calls.intercept); err != nil {
		listener.Close()
		return err
	}
	fmt.Fprintf(os.Stderr, "csi-mock: serving %s on %s\n", cfg.DriverName, socket)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	sig := <-stop
	fmt.Fprintf(os.Stderr, "csi-mock: %v: stopping\n", sig)
	if !calls.drain(drainTimeout) {
		fmt.Fprintf(os.Stderr, "csi-mock: calls still in flight after %v; stopping anyway\n", drainTimeout)
	}
	d.Stop()
	return nil
}

// dropSeededVolumes deletes the volumes service.New creates, straight through the service (not
// logged: no client made these calls).
func dropSeededVolumes(svc service.Service) error {
	list, err := svc.ListVolumes(context.Background(), &csi.ListVolumesRequest{})
	if err != nil {
		return fmt.Errorf("listing the seeded volumes: %w", err)
	}
	for _, e := range list.GetEntries() {
		id := e.GetVolume().GetVolumeId()
		if _, err := svc.DeleteVolume(context.Background(), &csi.DeleteVolumeRequest{VolumeId: id}); err != nil {
			return fmt.Errorf("deleting seeded volume %s: %w", id, err)
		}
	}
	return nil
}

// dropSeededSnapshots deletes the snapshots service.New creates, straight through the service.
func dropSeededSnapshots(svc service.Service) error {
	list, err := svc.ListSnapshots(context.Background(), &csi.ListSnapshotsRequest{})
	if err != nil {
		return fmt.Errorf("listing the seeded snapshots: %w", err)
	}
	for _, e := range list.GetEntries() {
		id := e.GetSnapshot().GetSnapshotId()
		if _, err := svc.DeleteSnapshot(context.Background(), &csi.DeleteSnapshotRequest{SnapshotId: id}); err != nil {
			return fmt.Errorf("deleting seeded snapshot %s: %w", id, err)
		}
	}
	return nil
}

// sizedSnapshots is the mock's controller service with each snapshot's size_bytes filled in:
// the capacity of its source volume when CreateSnapshot first answered it. Answers are copies;
// the mock's own records are never written.
type sizedSnapshots struct {
	service.Service
	mu    sync.Mutex
	sizes map[string]int64 // snapshot id -> bytes
}

func newSizedSnapshots(svc service.Service) *sizedSnapshots {
	return &sizedSnapshots{Service: svc, sizes: map[string]int64{}}
}

func (s *sizedSnapshots) CreateSnapshot(ctx context.Context, req *csi.CreateSnapshotRequest) (*csi.CreateSnapshotResponse, error) {
	resp, err := s.Service.CreateSnapshot(ctx, req)
	if err != nil || resp.GetSnapshot() == nil {
		return resp, err
	}
	id := resp.GetSnapshot().GetSnapshotId()
	s.mu.Lock()
	size, known := s.sizes[id]
	s.mu.Unlock()
	if !known {
		// A snapshot is as large as its source volume; a repeated CreateSnapshot keeps the first size.
		size = s.volumeBytes(ctx, req.GetSourceVolumeId())
		s.mu.Lock()
		if first, ok := s.sizes[id]; ok {
			size = first
		} else {
			s.sizes[id] = size
		}
		s.mu.Unlock()
	}
	return &csi.CreateSnapshotResponse{Snapshot: s.sized(resp.GetSnapshot(), size)}, nil
}

func (s *sizedSnapshots) ListSnapshots(ctx context.Context, req *csi.ListSnapshotsRequest) (*csi.ListSnapshotsResponse, error) {
	resp, err := s.Service.ListSnapshots(ctx, req)
	if err != nil {
		return resp, err
	}
	out := &csi.ListSnapshotsResponse{NextToken: resp.GetNextToken()}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range resp.GetEntries() {
		out.Entries = append(out.Entries, &csi.ListSnapshotsResponse_Entry{Snapshot: s.sized(e.GetSnapshot(), s.sizes[e.GetSnapshot().GetSnapshotId()])})
	}
	return out, nil
}

func (s *sizedSnapshots) DeleteSnapshot(ctx context.Context, req *csi.DeleteSnapshotRequest) (*csi.DeleteSnapshotResponse, error) {
	resp, err := s.Service.DeleteSnapshot(ctx, req)
	if err == nil {
		s.mu.Lock()
		delete(s.sizes, req.GetSnapshotId())
		s.mu.Unlock()
	}
	return resp, err
}

// sized is a copy of snap whose size_bytes is size (where the mock left it 0).
func (s *sizedSnapshots) sized(snap *csi.Snapshot, size int64) *csi.Snapshot {
	c := proto.Clone(snap).(*csi.Snapshot)
	if c.GetSizeBytes() == 0 {
		c.SizeBytes = size
	}
	return c
}

// volumeBytes is a volume's capacity, 0 when the mock does not know it.
func (s *sizedSnapshots) volumeBytes(ctx context.Context, id string) int64 {
	got, err := s.Service.ControllerGetVolume(ctx, &csi.ControllerGetVolumeRequest{VolumeId: id})
	if err != nil {
		return 0
	}
	return got.GetVolume().GetCapacityBytes()
}

// callLog is the unary interceptor: it writes one line per call and tracks calls in flight so a
// graceful stop can wait for them.
type callLog struct {
	mu       sync.Mutex
	out      io.Writer
	inFlight sync.WaitGroup
	stopping bool
}

func newCallLog(out io.Writer) *callLog { return &callLog{out: out} }

type logLine struct {
	Time       string          `json:"time"`
	Method     string          `json:"method"`
	Request    json.RawMessage `json:"request"`
	Response   json.RawMessage `json:"response"`
	Code       string          `json:"code"`
	Error      *string         `json:"error"`
	DurationMs float64         `json:"durationMs"`
}

func (c *callLog) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	if !c.enter() {
		err := status.Error(codes.Unavailable, "csi-mock is stopping")
		c.write(start, info.FullMethod, req, nil, err)
		return nil, err
	}
	defer c.inFlight.Done()
	resp, err := handler(ctx, req)
	c.write(start, info.FullMethod, req, resp, err)
	return resp, err
}

func (c *callLog) enter() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		return false
	}
	c.inFlight.Add(1)
	return true
}

// drain refuses new calls and waits up to timeout for those in flight; false on timeout.
func (c *callLog) drain(timeout time.Duration) bool {
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	done := make(chan struct{})
	go func() { c.inFlight.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

func (c *callLog) write(start time.Time, method string, req, resp any, err error) {
	line := logLine{
		Time:       start.UTC().Format(time.RFC3339Nano),
		Method:     method,
		Request:    messageJSON(req),
		Response:   json.RawMessage("null"),
		Code:       status.Code(err).String(),
		DurationMs: float64(time.Since(start).Microseconds()) / 1000,
	}
	if err != nil {
		msg := status.Convert(err).Message()
		line.Error = &msg
	} else {
		line.Response = messageJSON(resp)
	}
	b, mErr := json.Marshal(line)
	if mErr != nil {
		fmt.Fprintf(os.Stderr, "csi-mock: logging %s: %v\n", method, mErr)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, wErr := c.out.Write(append(b, '\n')); wErr != nil {
		fmt.Fprintf(os.Stderr, "csi-mock: writing the log: %v\n", wErr)
	}
}

// messageJSON renders a request or response as protojson (lowerCamelCase names), secrets redacted.
func messageJSON(v any) json.RawMessage {
	m, ok := v.(proto.Message)
	if !ok || m == nil {
		return json.RawMessage("null")
	}
	clone := proto.Clone(m)
	redactSecrets(clone.ProtoReflect())
	b, err := protojson.Marshal(clone)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

const redacted = "REDACTED"

// redactSecrets replaces the values of every map field named `secrets`, in m and every message
// nested in it.
func redactSecrets(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() && fd.Name() == "secrets" && fd.MapValue().Kind() == protoreflect.StringKind:
			mp := m.Mutable(fd).Map()
			var keys []protoreflect.MapKey
			mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				keys = append(keys, k)
				return true
			})
			for _, k := range keys {
				mp.Set(k, protoreflect.ValueOfString(redacted))
			}
		case fd.IsMap() && fd.MapValue().Kind() == protoreflect.MessageKind:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				redactSecrets(mv.Message())
				return true
			})
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			for i := 0; i < v.List().Len(); i++ {
				redactSecrets(v.List().Get(i).Message())
			}
		case !fd.IsList() && !fd.IsMap() && fd.Kind() == protoreflect.MessageKind:
			redactSecrets(v.Message())
		}
		return true
	})
}
