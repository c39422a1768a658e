package cli

import (
	"context"
	"errors"
	"os"

	"sandboxdesk/ipc"
	"sandboxdesk/rules"
	"sandboxdesk/sandboxes"
	"sandboxdesk/wire"
)

// rootPath resolves --root (or its defaults).
func (e *env) rootPath() (string, error) { return rules.ResolveRoot(e.root) }

// connect returns a client of the controller that owns the root, starting
// this program's `serve` for it, detached, when none answers.
func (e *env) connect(ctx context.Context) (ipc.Client, error) {
	root, err := e.rootPath()
	if err != nil {
		return nil, err
	}
	exe, _ := os.Executable() // unknown: sandboxdesk on PATH
	return sandboxes.Connect(ctx, sandboxes.Controller{Root: root, Exe: exe, Notices: e.Err})
}

// existing returns a client of a running controller, or nil: for commands
// that must not start one (quit).
func (e *env) existing(ctx context.Context) (ipc.Client, string, error) {
	root, err := e.rootPath()
	if err != nil {
		return nil, "", err
	}
	c := &wire.SocketClient{Path: wire.SocketPath(root)}
	if !answers(ctx, c) {
		return nil, root, nil
	}
	return c, root, nil
}

var answers = sandboxes.Answers

// exitFor maps an error from the controller to an exit status: bad input
// is a usage error (2), anything else a failed operation (1).
func exitFor(err error) error {
	if errors.Is(err, ipc.ErrInvalid) {
		return &usageError{msg: err.Error()}
	}
	return err
}
