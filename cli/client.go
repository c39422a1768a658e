package cli

import (
	"context"
	"errors"
	"os"

	"sandboxdesk/ipc"
	"sandboxdesk/rules"
	"sandboxdesk/sandboxes"
)

// rootPath resolves --root (or its defaults).
func (e *env) rootPath() (string, error) { return rules.ResolveRoot(e.root) }

// open returns the sandboxes of --prefix in the root, through the Go
// client agents use, starting this program's `serve` for the root,
// detached, when no controller answers.
func (e *env) open(ctx context.Context) (*sandboxes.Client, error) {
	exe, _ := os.Executable() // unknown: sandboxdesk on PATH
	return sandboxes.Open(ctx, sandboxes.Config{Root: e.root, Prefix: e.prefix, Exe: exe, Notices: e.Err})
}

// existing returns the client of a running controller, or nil: for
// commands that must not start one (quit, and questions a plan answers).
func (e *env) existing(ctx context.Context) (*sandboxes.Client, error) {
	return sandboxes.Running(ctx, sandboxes.Config{Root: e.root, Prefix: e.prefix})
}

// exitFor maps an error from the controller to an exit status: bad input
// is a usage error (2), anything else a failed operation (1). The command
// already names what it was doing, so a sandboxes call's error shows what
// the controller said, as it is.
func exitFor(err error) error {
	if op, ok := errors.AsType[*sandboxes.OpError](err); ok {
		err = op.Err
	}
	if errors.Is(err, ipc.ErrInvalid) {
		return &usageError{msg: err.Error()}
	}
	return err
}
