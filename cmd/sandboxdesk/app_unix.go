//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"

	"sandboxdesk/backends/agent"
)

// openApp becomes the desktop app, with the same arguments; it returns
// only when it could not.
func openApp(args []string) error {
	app, err := appPath()
	if err != nil {
		return err
	}
	err = syscall.Exec(app, append([]string{app}, args...), os.Environ())
	return fmt.Errorf("open the desktop app %s: %w", app, err)
}

// runAgent runs the in-sandbox agent when this binary was started as one
// (a build without the static sandboxdesk-agent beside it).
func runAgent(args []string) (int, bool) {
	if len(args) > 0 && args[0] == agent.Command {
		return agent.Main(args[1:]), true
	}
	return 0, false
}
