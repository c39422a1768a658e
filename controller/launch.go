package controller

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"

	"sandboxdesk/ipc"
)

// Launch starts several sandboxes together, as the app does when it opens:
// every one is marked starting (or queued, beyond the "at once" limit)
// before any is booted, so they divide the memory budget evenly instead of
// the first taking it all.
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
			errs[i] = c.boot(ctx, j.r.FullName, m)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
