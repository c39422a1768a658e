package controller

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"

	"sandboxdesk/ipc"
)

// reasonShutdown is the reason a controller that shuts down gives its
// sandboxes; halt marks them to be restored at the next launch.
const reasonShutdown = "stopped: the controller is shutting down; it starts again at the next launch"

// Restore starts again, together, the sandboxes that were running when
// the controller last stopped (Shutdown, or a crash found by reconcile)
// and that the backend did not keep running. The app and serve call it
// once they are up.
func (c *Controller) Restore(ctx context.Context) error {
	var refs []ipc.Ref
	for _, r := range c.snapshot("", true) {
		if r.Restore && !r.State.Active() {
			refs = append(refs, ipc.Ref{Prefix: r.Prefix, Name: r.Name})
		}
	}
	if len(refs) == 0 {
		return nil
	}
	c.log.Info("restoring the sandboxes that ran when the controller last stopped", "count", len(refs))
	return c.Launch(ctx, refs)
}

// Launch starts several sandboxes together, as the app does when it opens:
// every one is marked starting (or queued, beyond the "at once" limit)
// before any is booted, so they divide the memory budget evenly instead of
// the first taking it all. ctx ends a wait in the queue; a boot that has
// begun finishes, so a launch called off never leaves a half-built
// sandbox marked broken.
func (c *Controller) Launch(ctx context.Context, refs []ipc.Ref) error {
	fulls := make([]string, 0, len(refs))
	for _, ref := range refs {
		full, err := fullName(ref.Prefix, ref.Name)
		if err != nil {
			return err
		}
		fulls = append(fulls, full)
	}
	sort.Strings(fulls) // a fixed order: two launches never deadlock on names
	fulls = slices.Compact(fulls)
	for _, full := range fulls {
		unlock, err := c.lockName(ctx, full)
		if err != nil {
			return err
		}
		defer unlock()
	}
	m := c.measureNow(ctx)
	lim, err := c.limitsOn(ctx, m)
	if err != nil {
		return err
	}
	type job struct {
		r      *record
		w      *waiter
		before ipc.State
	}
	var jobs []job
	c.mu.Lock()
	c.atOnce = lim.AtOnce
	for _, full := range fulls {
		cur, ok := c.boxes[full]
		if !ok {
			c.mu.Unlock()
			return ipc.Errorf(ipc.ErrNotFound, "no sandbox named %s", full)
		}
		if cur.State.Active() {
			continue
		}
		r := *cur
		before := r.State
		w, err := c.enqueueLocked(ctx, &r, lim.AtOnce)
		if err != nil {
			c.mu.Unlock()
			return err
		}
		jobs = append(jobs, job{&r, w, before})
	}
	c.mu.Unlock()

	var wg sync.WaitGroup
	errs := make([]error, len(jobs))
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if j.w != nil {
				if errs[i] = c.await(ctx, j.w, j.before); errs[i] != nil {
					return
				}
			}
			errs[i] = c.boot(context.WithoutCancel(ctx), j.r.FullName, m)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
