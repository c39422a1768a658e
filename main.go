// sandboxdesk runs local sandboxes for coding agents. With no arguments it
// opens the desktop app; with a subcommand it is the command line.
package main

import (
	"context"
	"os"

	"sandboxdesk/backends/agent"
	"sandboxdesk/cli"
	"sandboxdesk/daemon"
	_ "sandboxdesk/locale" // before Fyne reads the locale
)

func main() {
	if code, ok := agent.Dispatch(os.Args[1:]); ok {
		os.Exit(code)
	}
	if root, ok := cli.WantsApp(os.Args[1:]); ok {
		os.Exit(runDesktop(root))
	}
	// no cancel on Ctrl-C here: exec passes it to the command in the
	// sandbox, and the commands that wait (create, serve) handle it
	os.Exit(cli.Run(context.Background(), os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Serve: daemon.Run}))
}
