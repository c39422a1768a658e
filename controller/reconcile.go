package controller

import (
	"context"

	"sandboxdesk/ipc"
)

// reconcile loads the store and squares it with what the backends observe.
// Sandboxes the store thinks active but that no backend runs are marked
// stopped; ones a backend still runs are adopted as running. Things a
// backend reports that the store does not know are left alone, and
// nothing is ever deleted to make the books balance.
func (c *Controller) reconcile(ctx context.Context) error {
	recs, err := c.store.loadAll(ctx)
	if err != nil {
		return err
	}
	running := map[string]bool{}
	observed := map[string]bool{} // backends we could ask
	for name, b := range c.backends {
		obs, err := b.Observe(ctx)
		if err != nil {
			c.log.Warn("observe backend", "backend", name, "err", err)
			continue
		}
		observed[name] = true
		for _, o := range obs {
			running[o.ID] = o.Running
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range recs {
		r := &recs[i]
		c.boxes[r.FullName] = r
		if !observed[r.Backend] {
			continue
		}
		was := r.State
		switch {
		case running[r.ID] && was != ipc.StateRunning:
			r.State = ipc.StateRunning
		case !running[r.ID] && (was.Active() || was == ipc.StateQueued):
			r.State, r.ReservedMiB, r.LimitMiB, r.PidsLimit, r.DiskLimitMiB = ipc.StateStopped, 0, 0, 0, 0
		default:
			continue
		}
		if err := c.setStateLocked(ctx, r, "found "+string(r.State)+" at start (was "+string(was)+")"); err != nil {
			return err
		}
	}
	return nil
}
