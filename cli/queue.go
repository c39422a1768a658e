package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

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
	go func() {
		defer close(q.done)
		// a create that is not queued answers at once (a reuse within
		// milliseconds, a start within a fraction of a second): only one
		// still waiting after that is worth a subscription
		t := time.NewTimer(queueWatchDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		events, err := sbx.Subscribe(ctx)
		if err != nil {
			return
		}
		q.show(ctx, sbx, name, w) // the place it took before the subscription
		for e := range events {
			if e.Kind == ipc.EventState {
				// any start or stop may move the line
				q.show(ctx, sbx, name, w)
			}
		}
	}()
	return func() int {
		cancel()
		<-q.done
		return q.last
	}
}

// queueWatchDelay is how long a create waits before it follows the queue.
const queueWatchDelay = 200 * time.Millisecond

// show asks where the sandbox stands in the queue and says so when its
// place changed.
func (q *queueWatch) show(ctx context.Context, sbx *sandboxes.Client, name string, w io.Writer) {
	sb, err := sbx.Sandbox(name).Inspect(ctx)
	if err != nil {
		return
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
