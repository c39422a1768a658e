package controller

import (
	"context"
	"fmt"
	"strconv"

	"sandboxdesk/ipc"
)

// waiter is a start waiting for an "at once" slot.
type waiter struct {
	fullName string
	admitted chan struct{} // closed when the start may go on
	cancel   chan struct{} // closed when a stop or remove takes it out
	done     bool          // admitted or cancelled; guarded by c.mu
}

// activeLocked counts sandboxes starting, running or stopping: the N of
// the memory share and what the "at once" limit bounds.
func (c *Controller) activeLocked() int {
	n := 0
	for _, r := range c.boxes {
		if r.State.Active() {
			n++
		}
	}
	return n
}

// committedLocked is the memory running sandboxes really reserved.
func (c *Controller) committedLocked() int64 {
	var sum int64
	for _, r := range c.boxes {
		if r.State.Active() {
			sum += r.ReservedMiB
		}
	}
	return sum
}

// enqueueLocked admits r at once when a slot is free and nobody is ahead
// of it (r becomes starting), or puts it at the back of the queue (r
// becomes queued) and returns its waiter.
func (c *Controller) enqueueLocked(ctx context.Context, r *record, atOnce int) (*waiter, error) {
	if len(c.queue) == 0 && c.activeLocked() < atOnce {
		r.State, r.Error = ipc.StateStarting, ""
		return nil, c.setStateLocked(ctx, r, "starting")
	}
	w := &waiter{fullName: r.FullName, admitted: make(chan struct{}), cancel: make(chan struct{})}
	c.queue = append(c.queue, w)
	r.State, r.Error = ipc.StateQueued, ""
	if err := c.setStateLocked(ctx, r, "queued: the host runs "+strconv.Itoa(atOnce)+" at once"); err != nil {
		c.queue = c.queue[:len(c.queue)-1]
		return nil, err
	}
	return w, nil
}

// await blocks until w is admitted (r is then starting), or the caller's
// context ends or a stop takes w out: then r is back to what it was
// before and the error says why.
func (c *Controller) await(ctx context.Context, w *waiter, before ipc.State) error {
	var why error
	select {
	case <-w.admitted:
		return nil
	case <-ctx.Done():
		why = fmt.Errorf("the start of %s was called off while it waited for a slot: %w", w.fullName, context.Cause(ctx))
	case <-w.cancel:
		why = ipc.Errorf(ipc.ErrConflict, "the start of %s was called off while it waited for a slot", w.fullName)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if isClosed(w.admitted) {
		// admitted in the same instant: give the slot back
		why = ctx.Err()
		if why == nil {
			why = ipc.Errorf(ipc.ErrConflict, "the start of %s was called off", w.fullName)
		}
	}
	w.done = true
	c.removeWaiterLocked(w)
	if r := c.boxes[w.fullName]; r != nil {
		cp := *r
		cp.State = before
		if err := c.setStateLocked(ctx, &cp, "left the queue"); err != nil {
			c.log.Error("leave queue", "sandbox", w.fullName, "err", err)
		}
	}
	c.admitNextLocked(ctx)
	return why
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (c *Controller) removeWaiterLocked(w *waiter) {
	for i, q := range c.queue {
		if q == w {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			return
		}
	}
}

// admitNextLocked hands free slots to the queue, first come first served.
// It is called whenever a sandbox stops being active.
func (c *Controller) admitNextLocked(ctx context.Context) {
	for len(c.queue) > 0 && c.activeLocked() < c.atOnce {
		w := c.queue[0]
		c.queue = c.queue[1:]
		if w.done {
			continue // called off; its own await cleans up
		}
		w.done = true
		if r := c.boxes[w.fullName]; r != nil {
			cp := *r
			cp.State = ipc.StateStarting
			if err := c.setStateLocked(ctx, &cp, "starting: a slot is free"); err != nil {
				c.log.Error("admit", "sandbox", w.fullName, "err", err)
			}
		}
		close(w.admitted)
	}
}

// cancelQueued takes a queued start of fullName out of the queue, so a stop
// or remove need not wait behind it.
func (c *Controller) cancelQueued(fullName string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.queue {
		if w.fullName == fullName && !w.done {
			w.done = true
			close(w.cancel)
		}
	}
}

// queuePositionLocked is 1 for the next to start, 0 when not queued.
func (c *Controller) queuePositionLocked(fullName string) int {
	for i, w := range c.queue {
		if w.fullName == fullName {
			return i + 1
		}
	}
	return 0
}
