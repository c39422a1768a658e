// sandboxdesk runs local sandboxes for coding agents. With no arguments it
// opens the desktop app; with a subcommand it is the command line.
package main

import (
	"context"
	"os"
	"strings"

	"sandboxdesk/cli"
	_ "sandboxdesk/locale" // before Fyne reads the locale
)

func main() {
	if code, ok := runAgent(os.Args[1:]); ok {
		os.Exit(code)
	}
	if root, ok := desktopArgs(os.Args[1:]); ok {
		os.Exit(runDesktop(root))
	}
	// no cancel on Ctrl-C here: exec passes it to the command in the
	// sandbox, and the commands that wait (create, serve) handle it
	os.Exit(cli.Run(context.Background(), os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}

// desktopArgs reports whether args ask for the desktop app: none at all, or
// only a root ("--root DIR"), as a launcher or a person testing may pass.
func desktopArgs(args []string) (root string, ok bool) {
	switch {
	case len(args) == 0:
		return "", true
	case len(args) == 2 && (args[0] == "--root" || args[0] == "-root") && args[1] != "":
		return args[1], true
	case len(args) == 1 && strings.HasPrefix(args[0], "--root=") && args[0] != "--root=":
		return strings.TrimPrefix(args[0], "--root="), true
	}
	// an empty --root is a mistake the command line reports
	return "", false
}
