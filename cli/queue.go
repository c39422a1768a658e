package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"sandboxdesk/ipc"
	"sandboxdesk/sandboxes"
)

// queueWatch tells the person on stderr while their create waits in the
// queue for an "at once" slot, and its place in line as it moves; a create
// that silently blocks looks hung.
type queueWatch struct {
	last int // the place last shown; 0 before any
	done chan struct{}
}

// watchQueue follows the controller's events for the sandbox of that name
// until stop is called. Without events (an old controller) it says nothing.
func watchQueue(ctx context.Context, sbx *sandboxes.Client, name string, w io.Writer) (stop func() (lastPlace int)) {
	ctx, cancel := context.WithCancel(ctx)
	q := &queueWatch{done: make(chan struct{})}
	events, err := sbx.Subscribe(ctx)
	if err != nil {
		cancel()
		return func() int { return 0 }
	}
	go func() {
		defer close(q.done)
		for e := range events {
			if e.Kind != ipc.EventState {
				continue
			}
			// any start or stop may move the line; ask where we stand
			sb, err := sbx.Sandbox(name).Inspect(ctx)
			if err != nil {
				continue
			}
			if sb.State == ipc.StateQueued && sb.QueuePosition > 0 && sb.QueuePosition != q.last {
				q.last = sb.QueuePosition
				limit := "as many as it may"
				if lim, err := sbx.Limits(ctx); err == nil && lim.AtOnce > 0 {
					limit = fmt.Sprintf("%d at once, its limit", lim.AtOnce)
				}
				fmt.Fprintf(w, "sandboxdesk: %s is queued, #%d in line: this root runs %s; waiting for one to stop (Ctrl-C calls it off)\n", sb.Name, q.last, limit)
			}
		}
	}()
	return func() int {
		cancel()
		<-q.done
		return q.last
	}
}

// calledOff words a create that ended while queued: what called it off.
func calledOff(ctx context.Context, name string, place int, err error) error {
	if ctx.Err() == nil || place == 0 {
		return err
	}
	why := context.Cause(ctx)
	if errors.Is(why, context.DeadlineExceeded) {
		why = errors.New("its time ran out")
	}
	return fmt.Errorf("create %s called off while queued (#%d in line): %v; nothing was started", name, place, why)
}
