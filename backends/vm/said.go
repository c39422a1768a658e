package vm

import (
	"context"

	"sandboxdesk/backends/agent"
	"sandboxdesk/text"
)

// call is agent.Call on a guest's agent. Guest root can replace our agent
// and answer anything, up to a megabyte of escape sequences, and the
// error ends up in a notice that inspect, the window and the person's
// terminal show: it comes back as one line of text.
func call(ctx context.Context, dial agent.Dialer, req agent.Request) (int, error) {
	code, err := agent.Call(ctx, dial, req)
	if err != nil {
		err = guestError{err}
	}
	return code, err
}

// guestError is an error whose words may be the guest's.
type guestError struct{ err error }

func (e guestError) Error() string { return text.Line(e.err.Error(), 300) }
func (e guestError) Unwrap() error { return e.err }
