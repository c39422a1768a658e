//go:build linux

// Command sandboxdesk-guest is a VM sandbox's /init: it prepares the
// machine, then runs the agent as its child while it reaps orphans.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"

	"sandboxdesk/backends/vm/guest"
)

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sandboxdesk-guest: "+format+"\n", args...)
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "serve" {
		cmdline, _ := os.ReadFile("/proc/cmdline")
		err := guest.Serve(guest.ParseCmdline(string(cmdline)), logf)
		logf("agent: %v", err)
		os.Exit(1)
	}
	if guest.IsLeaseEvent(os.Args, os.Getenv) {
		// busybox's DHCP client runs this program as its script
		if err := guest.Lease(os.Args[1], os.Getenv); err != nil {
			logf("network: %v", err)
			os.Exit(1)
		}
		return
	}
	if os.Getpid() != 1 {
		logf("is a VM's first process; run it as /init")
		os.Exit(2)
	}
	s := guest.Setup(logf)
	logf("ready: %s", s.Hostname)
	// the agent in a child of its own: this process has to reap every
	// orphan, which would steal the exit statuses the agent waits for
	go func() {
		for {
			cmd := exec.Command("/proc/self/exe", "serve")
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Start(); err != nil {
				logf("start agent: %v", err)
				guest.PowerOff()
			}
			cmd.Process.Wait()
			logf("agent ended; starting it again")
			time.Sleep(time.Second) // never a hot loop on a broken port

		}
	}()
	guest.Reap()
}
