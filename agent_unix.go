//go:build unix

package main

import "sandboxdesk/backends/agent"

// runAgent runs the in-sandbox agent when the binary was started as one.
func runAgent(args []string) (int, bool) {
	if len(args) > 0 && args[0] == agent.Command {
		return agent.Main(args[1:]), true
	}
	return 0, false
}
