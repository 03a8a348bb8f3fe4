// The CSI messages and services, for the descriptor src/csi loads (npm run csi:generate).
// The spec module embeds its file descriptor in its generated Go package; nothing else is needed.
module pv-controller.local/tools/csi

go 1.26.0

require (
	github.com/container-storage-interface/spec v1.13.0
	google.golang.org/protobuf v1.36.12
)

require (
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
	golang.org/x/text v0.37.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20251202230838-ff82c1b0f217 // indirect
	google.golang.org/grpc v1.79.3 // indirect
)
