package sandboxes

import "sandboxdesk/ipc"

// The kinds of error a caller can act on, checked with errors.Is.
var (
	ErrInvalid     = ipc.ErrInvalid // bad input: nothing changed
	ErrNotFound    = ipc.ErrNotFound
	ErrConflict    = ipc.ErrConflict // e.g. exec in a sandbox that is not running
	ErrUnavailable = ipc.ErrUnavailable
	ErrExhausted   = ipc.ErrExhausted
)

// OpError is a call that failed: what was being done, and why. Err is
// what the controller (or the connection to it) said, of one of the
// kinds above; a caller that already says what it was doing, as the
// command line does, shows Err alone.
type OpError struct {
	Op  string // "create sandbox w"
	Err error
}

func (e *OpError) Error() string { return e.Op + ": " + e.Err.Error() }
func (e *OpError) Unwrap() error { return e.Err }

func opError(op string, err error) error { return &OpError{Op: op, Err: err} }
