// Command csi-registrar registers a CSI driver's node service with a kubelet, the part
// node-driver-registrar plays in a driver's node DaemonSet (that sidecar is not served by the Go
// module proxy). It asks the driver its name (Identity/GetPluginInfo on --csi-address), then
// serves the kubelet's plugin registration API (k8s.io/kubelet/pkg/apis/pluginregistration/v1)
// on <registration-dir>/<driver>-reg.sock. The kubelet's plugin watcher finds that socket in
// <kubelet root>/plugins_registry, calls GetInfo (type CSIPlugin, the driver's name, the
// endpoint it should dial, the CSI versions served), dials the endpoint (NodeGetInfo, then the
// CSINode object and the node's csi.volume.kubernetes.io/nodeid annotation), and reports the
// outcome with NotifyRegistrationStatus.
//
// Usage:
//
//	csi-registrar --csi-address SOCKET --registration-dir DIR [--kubelet-registration-path PATH]
//	              [--timeout 60s]
//
// --kubelet-registration-path is the driver's socket as the kubelet sees it (default: the
// absolute --csi-address, right when both run on the same host). --timeout bounds the wait for
// the driver to answer GetPluginInfo at start.
//
// Log: one JSON object per line on stdout for every registration call, written when it
// returns: {"time","method","request","response","code","error"}, request and response as
// protojson. Diagnostics on stderr; its first line is `csi-registrar: serving DRIVER on PATH`,
// printed once the registration socket accepts. A NotifyRegistrationStatus that says the
// kubelet refused the plugin is logged and the process exits 1, as node-driver-registrar does,
// so whatever supervises it sees the failure. SIGTERM or SIGINT: the server stops gracefully,
// the registration socket is removed (the kubelet then deregisters the driver) and it exits 0.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	registration "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// csiVersions are the CSI spec versions the registration advertises (the kubelet needs 1.x).
var csiVersions = []string{"1.0.0"}

func main() {
	csiAddress := flag.String("csi-address", "", "the driver's CSI socket (required)")
	regDir := flag.String("registration-dir", "", "the kubelet's plugins_registry directory (required)")
	kubeletPath := flag.String("kubelet-registration-path", "", "the driver's socket as the kubelet dials it (default: the absolute --csi-address)")
	timeout := flag.Duration("timeout", 60*time.Second, "how long to wait for the driver to answer GetPluginInfo")
	flag.Parse()
	if *csiAddress == "" || *regDir == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: csi-registrar --csi-address SOCKET --registration-dir DIR [--kubelet-registration-path PATH] [--timeout D]")
		os.Exit(2)
	}
	endpoint := *kubeletPath
	if endpoint == "" {
		abs, err := filepath.Abs(*csiAddress)
		if err != nil {
			fail(err)
		}
		endpoint = abs
	}
	if err := run(*csiAddress, *regDir, endpoint, *timeout); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "csi-registrar: %v\n", err)
	os.Exit(1)
}

func run(csiAddress, regDir, endpoint string, timeout time.Duration) error {
	name, err := driverName(csiAddress, timeout)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(regDir, 0o750); err != nil {
		return err
	}
	socket := filepath.Join(regDir, name+"-reg.sock")
	if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing stale socket: %w", err)
	}
	listener, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	defer os.Remove(socket)

	refused := make(chan string, 1)
	server := grpc.NewServer(grpc.UnaryInterceptor(logCalls))
	registration.RegisterRegistrationServer(server, &registrar{name: name, endpoint: endpoint, refused: refused})
	served := make(chan error, 1)
	go func() { served <- server.Serve(listener) }()
	fmt.Fprintf(os.Stderr, "csi-registrar: serving %s on %s (endpoint %s)\n", name, socket, endpoint)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	select {
	case sig := <-stop:
		fmt.Fprintf(os.Stderr, "csi-registrar: %v: stopping\n", sig)
		server.GracefulStop()
		return nil
	case why := <-refused:
		server.GracefulStop()
		return fmt.Errorf("the kubelet refused %s: %s", name, why)
	case err := <-served:
		return err
	}
}

// driverName asks the driver its name, retrying until it answers or timeout passes.
func driverName(csiAddress string, timeout time.Duration) (string, error) {
	conn, err := grpc.NewClient("unix://"+csiAddress, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "", err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	identity := csi.NewIdentityClient(conn)
	for {
		info, err := identity.GetPluginInfo(ctx, &csi.GetPluginInfoRequest{}, grpc.WaitForReady(true))
		if err == nil {
			if info.GetName() == "" {
				return "", errors.New("the driver answered GetPluginInfo with no name")
			}
			return info.GetName(), nil
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("GetPluginInfo on %s: %w", csiAddress, err)
		}
		time.Sleep(time.Second)
	}
}

type registrar struct {
	registration.UnimplementedRegistrationServer
	name     string
	endpoint string
	refused  chan<- string
}

func (r *registrar) GetInfo(context.Context, *registration.InfoRequest) (*registration.PluginInfo, error) {
	return &registration.PluginInfo{Type: registration.CSIPlugin, Name: r.name, Endpoint: r.endpoint, SupportedVersions: csiVersions}, nil
}

func (r *registrar) NotifyRegistrationStatus(_ context.Context, s *registration.RegistrationStatus) (*registration.RegistrationStatusResponse, error) {
	if !s.GetPluginRegistered() {
		select {
		case r.refused <- s.GetError():
		default:
		}
	}
	return &registration.RegistrationStatusResponse{}, nil
}

var logMu sync.Mutex

type logLine struct {
	Time     string          `json:"time"`
	Method   string          `json:"method"`
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
	Code     string          `json:"code"`
	Error    *string         `json:"error"`
}

func logCalls(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	resp, err := handler(ctx, req)
	line := logLine{Time: start.UTC().Format(time.RFC3339Nano), Method: info.FullMethod, Request: asJSON(req), Response: json.RawMessage("null"), Code: status.Code(err).String()}
	if err != nil {
		msg := status.Convert(err).Message()
		line.Error = &msg
	} else {
		line.Response = asJSON(resp)
	}
	if b, mErr := json.Marshal(line); mErr == nil {
		logMu.Lock()
		_, _ = os.Stdout.Write(append(b, '\n'))
		logMu.Unlock()
	}
	return resp, err
}

func asJSON(v any) json.RawMessage {
	m, ok := v.(proto.Message)
	if !ok || m == nil {
		return json.RawMessage("null")
	}
	b, err := protojson.Marshal(m)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
