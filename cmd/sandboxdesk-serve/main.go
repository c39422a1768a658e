// sandboxdesk-serve is the controller without a window: what `sandboxdesk
// serve` becomes (on Windows, runs), found beside the command line. It
// links the controller, every backend and SQLite, which the command line
// does not, so that a client command starts in a millisecond. It answers
// the command line's arguments ("serve --root DIR"). A root controller
// also runs it again as the bubblewrap launcher (backends/bubblewrap),
// and, where the static sandboxdesk-agent is not beside it, as the agent.
package main

import (
	"context"
	"os"

	"sandboxdesk/backends/agent"
	"sandboxdesk/cli"
	"sandboxdesk/daemon"
)

func main() {
	if code, ok := agent.Dispatch(os.Args[1:]); ok {
		os.Exit(code)
	}
	// no cancel on Ctrl-C here: serve handles it, stopping its sandboxes
	os.Exit(cli.Run(context.Background(), os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Serve: daemon.Run}))
}
