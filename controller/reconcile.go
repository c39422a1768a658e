package controller

import (
	"context"
	"os"
	"time"

	"sandboxdesk/backends"
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
	// held while observing: a backend that adopts a running sandbox starts
	// watching it, and a death it sees at once must find the records
	// loaded, not be lost before they are
	c.mu.Lock()
	defer c.mu.Unlock()
	running := map[string]bool{}
	holds := map[string]backends.Observed{}
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
			holds[o.ID] = o
		}
	}
	for i := range recs {
		c.boxes[recs[i].FullName] = &recs[i]
	}
	c.sweepTrash(c.boxes)
	c.describeAll()
	known := map[string]bool{}
	for i := range recs {
		r := &recs[i]
		known[r.ID] = true
		if !observed[r.Backend] {
			continue
		}
		was := r.State
		if running[r.ID] {
			r.Accel = holds[r.ID].Accel // kept in memory only
		}
		switch {
		case running[r.ID] && was != ipc.StateRunning:
			// adopted: what it holds is what the backend says, and its
			// idle time starts now
			now := c.clock.Now()
			r.State = ipc.StateRunning
			r.ReservedMiB, r.LimitMiB = pick(r.ReservedMiB, holds[r.ID].ReservedMiB), pick(r.LimitMiB, holds[r.ID].MemoryLimitMiB)
			r.StartedAt, r.LastUsedAt = pickTime(r.StartedAt, now), pickTime(r.LastUsedAt, now)
		case !running[r.ID] && (was.Active() || was == ipc.StateQueued):
			// it ran (or was starting) when the controller died: the next
			// launch restores it; one being stopped stays stopped
			r.State, r.ReservedMiB, r.LimitMiB, r.PidsLimit, r.DiskLimitMiB = ipc.StateStopped, 0, 0, 0, 0
			r.Restore = was == ipc.StateRunning || was == ipc.StateStarting
		default:
			continue
		}
		if err := c.setStateLocked(ctx, r, "found "+string(r.State)+" at start (was "+string(was)+")"); err != nil {
			if !isDiskFull(err) {
				return err
			}
			// r is the record in memory, already changed: the controller
			// starts with what is true, and saves it with the next change
			c.log.Warn("record what was found at start", "sandbox", r.FullName, "err", err)
		}
	}
	for id, up := range running {
		if up && !known[id] {
			c.log.Warn("a sandbox of this root runs but is not listed: its folder has no readable sandbox.json", "id", id, "folder", c.stateDir(id))
		}
	}
	return nil
}

// describeAll writes sandbox.json for every sandbox that has no readable
// one (made by a version that did not write it, or left empty by a crash
// before its sync, see build), so a lost database can always be rebuilt.
// A failure only costs that, and is logged.
func (c *Controller) describeAll() {
	for _, r := range c.boxes {
		dir := c.stateDir(r.ID)
		if _, err := readMeta(dir, r.ID); err == nil {
			continue
		}
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if err := writeMeta(dir, r); err != nil {
			c.log.Warn("describe a sandbox in its folder", "sandbox", r.FullName, "err", err)
		}
	}
}

func pickTime(t, def time.Time) time.Time {
	if t.IsZero() {
		return def
	}
	return t
}
