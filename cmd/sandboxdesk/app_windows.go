package main

import (
	"fmt"
	"os"
	"os/exec"
)

// openApp starts the desktop app with the same arguments and ends this
// console command; it returns only when it could not.
func openApp(args []string) error {
	app, err := appPath()
	if err != nil {
		return err
	}
	cmd := exec.Command(app, args...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open the desktop app %s: %w", app, err)
	}
	os.Exit(0)
	return nil
}

// runAgent: the Windows build has no in-process agent (WSL runs the Linux
// one).
func runAgent([]string) (int, bool) { return 0, false }
