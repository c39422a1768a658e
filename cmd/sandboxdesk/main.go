// sandboxdesk is the command line: the client subcommands, and serve,
// which becomes the controller program sandboxdesk-serve found beside it.
// It links no controller, backend, SQLite or Fyne, and no cgo at all, so a
// command starts in about a millisecond. With no arguments (or only
// --root) it opens the desktop app, sandboxdesk-app, found beside it.
package main

import (
	"context"
	"fmt"
	"os"

	"sandboxdesk/cli"
)

// The programs shipped beside this command.
const (
	appName   = "sandboxdesk-app"
	serveName = "sandboxdesk-serve"
)

func main() {
	if _, ok := cli.WantsApp(os.Args[1:]); ok {
		err := openApp(os.Args[1:])
		fmt.Fprintln(os.Stderr, "sandboxdesk:", err)
		os.Exit(1)
	}
	// no cancel on Ctrl-C here: exec passes it to the command in the
	// sandbox, and the commands that wait (create, serve) handle it
	os.Exit(cli.Run(context.Background(), os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Serve: serve}))
}
