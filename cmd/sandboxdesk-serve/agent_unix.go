//go:build unix

package main

import "sandboxdesk/backends/agent"

// runAgent runs the in-sandbox agent when this binary was started as one:
// the backends fall back to the controller's own binary when the static
// sandboxdesk-agent is not beside it (agent.Binary).
func runAgent(args []string) (int, bool) {
	if len(args) > 0 && args[0] == agent.Command {
		return agent.Main(args[1:]), true
	}
	return 0, false
}
