//go:build unix

package sandboxes_test

import "sandboxdesk/backends/agent"

// runAgent is this test binary as the agent inside a sandbox, as the
// sandboxdesk program is.
func runAgent(args []string) (int, bool) {
	if len(args) > 0 && args[0] == agent.Command {
		return agent.Main(args[1:]), true
	}
	return 0, false
}
