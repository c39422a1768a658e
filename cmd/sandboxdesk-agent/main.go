//go:build unix

// sandboxdesk-agent is the agent that runs inside every sandbox: a small
// static binary (built with CGO_ENABLED=0), so a sandbox needs none of the
// host's libraries to run it. Backends start it as
// "sandboxdesk-agent __sandboxdesk_agent fd:N [ready:N]".
package main

import (
	"fmt"
	"os"

	"sandboxdesk/backends/agent"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != agent.Command {
		fmt.Fprintln(os.Stderr, "sandboxdesk-agent runs inside a sandbox, started by sandboxdesk; it is not run by hand")
		os.Exit(2)
	}
	os.Exit(agent.Main(os.Args[2:]))
}
