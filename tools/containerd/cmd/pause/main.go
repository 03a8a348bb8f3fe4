// Command pause is the process of every pod sandbox on the test nodes (tools/cluster/nodes.ts):
// it holds the pod's namespaces open, reaps any child re-parented to it (it is PID 1 of the pod
// when the pod shares its process namespace) and exits on SIGINT or SIGTERM. No registry can be
// reached from these machines, so the image is built here from this static binary alone.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		fmt.Println("pause (pv-controller test nodes)")
		return
	}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
