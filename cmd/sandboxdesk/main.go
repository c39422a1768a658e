// sandboxdesk is the command line: the client subcommands and serve (the
// controller without a window). It links no Fyne and no GL, so a command
// starts in a few milliseconds. With no arguments (or only --root) it
// opens the desktop app, sandboxdesk-app, found beside it.
package main

import (
	"context"
	"fmt"
	"os"

	"sandboxdesk/cli"
	"sandboxdesk/daemon"
)

// appName is the desktop app's file name, beside this command.
const appName = "sandboxdesk-app"

func main() {
	if code, ok := runAgent(os.Args[1:]); ok {
		os.Exit(code)
	}
	if _, ok := cli.WantsApp(os.Args[1:]); ok {
		err := openApp(os.Args[1:])
		fmt.Fprintln(os.Stderr, "sandboxdesk:", err)
		os.Exit(1)
	}
	// no cancel on Ctrl-C here: exec passes it to the command in the
	// sandbox, and the commands that wait (create, serve) handle it
	os.Exit(cli.Run(context.Background(), os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Serve: daemon.Run}))
}
