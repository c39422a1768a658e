package controller

import (
	"context"
	"slices"

	"sandboxdesk/ipc"
)

// commit saves a change and, once it is saved, applies it to the records
// in memory and publishes its event. It is called with c.mu held so that
// memory, database and subscribers see changes in the same order.
func (c *Controller) commitLocked(ctx context.Context, ch change) error {
	ch = c.withUnsavedLocked(ch)
	// a state change must land even if the caller's context just ended,
	// or memory and database would disagree
	err := c.store.apply(context.WithoutCancel(ctx), ch)
	if isDiskFull(err) {
		if ch.minor {
			// bookkeeping is kept in memory; the space is left for the
			// changes that matter (stop, rm)
			c.keepUnsavedLocked(ch)
			return nil
		}
		err = c.saveOnFullDisk(ctx, ch)
	}
	if err != nil {
		return err
	}
	clear(c.unsaved)
	c.applyLocked(ch)
	return nil
}

// keepUnsavedLocked applies a change the disk had no room for to memory
// only, and remembers its records for the next change that saves.
func (c *Controller) keepUnsavedLocked(ch change) {
	c.applyLocked(ch)
	for _, r := range ch.put {
		c.unsaved[r.ID] = true
	}
}

// withUnsavedLocked adds to ch the records a full disk kept unsaved.
func (c *Controller) withUnsavedLocked(ch change) change {
	if len(c.unsaved) == 0 {
		return ch
	}
	in := map[string]bool{}
	for _, r := range ch.put {
		in[r.ID] = true
	}
	for _, id := range ch.delete {
		in[id] = true
	}
	ch.put = slices.Clone(ch.put)
	for _, r := range c.boxes {
		if c.unsaved[r.ID] && !in[r.ID] {
			ch.put = append(ch.put, r)
		}
	}
	return ch
}

// applyLocked applies a saved change to the records in memory and
// publishes its event.
func (c *Controller) applyLocked(ch change) {
	for _, id := range ch.delete {
		for name, r := range c.boxes {
			if r.ID == id {
				delete(c.boxes, name)
			}
		}
	}
	for _, r := range ch.put {
		cp := *r
		c.boxes[r.FullName] = &cp
	}
	if ch.event.Kind != "" {
		c.events.publish(ch.event)
	}
}

// setState records a new state for r (already changed by the caller) with
// one event.
func (c *Controller) setStateLocked(ctx context.Context, r *record, message string) error {
	return c.commitLocked(ctx, change{put: []*record{r}, event: c.stateEvent(r, message)})
}

func (c *Controller) stateEvent(r *record, message string) ipc.Event {
	return ipc.Event{Time: c.clock.Now(), Kind: ipc.EventState, Sandbox: r.FullName, ID: r.ID, State: r.State, Message: message}
}
