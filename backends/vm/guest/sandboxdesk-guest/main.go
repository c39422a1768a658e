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
	if len(os.Args) == 4 && os.Args[1] == "serve" {
		err := guest.Serve(os.Args[2], os.Args[3], logf)
		logf("agent: %v", err)
		os.Exit(1)
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
			cmd := exec.Command("/proc/self/exe", "serve", s.Port, s.Share)
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
