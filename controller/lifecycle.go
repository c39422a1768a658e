package controller

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/ipc"
)

// Create returns the sandbox named req.Name, started. An existing sandbox
// whose shape serves the request is reused (and started if it is not
// running); one that does not serve is rebuilt with its workspace kept;
// req.Replace removes it and its workspace first. Bad input is refused
// before anything is written.
func (c *Controller) Create(ctx context.Context, req ipc.CreateRequest) (ipc.Sandbox, error) {
	full, err := fullName(req.Prefix, req.Name)
	if err != nil {
		return ipc.Sandbox{}, err
	}
	s, err := c.validate(ctx, req)
	if err != nil {
		return ipc.Sandbox{}, err
	}
	unlock, err := c.lockName(ctx, full)
	if err != nil {
		return ipc.Sandbox{}, err
	}
	defer unlock()

	existing := c.get(full)
	if existing != nil && existing.Prefix != req.Prefix {
		return ipc.Sandbox{}, ipc.Errorf(ipc.ErrConflict, "the name %s is taken by a sandbox of fleet %q", full, existing.Prefix)
	}
	reason := "created"
	m := c.measureOnce(ctx) // at most once: the reuse check and the start read it
	if existing != nil && req.Replace {
		if err := c.roomToBuild(full, m()); err != nil {
			return ipc.Sandbox{}, err
		}
		if err := c.destroy(ctx, existing, true, "replaced"); err != nil {
			return ipc.Sandbox{}, err
		}
		existing, reason = nil, "replaced: workspace emptied"
	}
	if existing != nil {
		ok, why := serves(existing, s, c.clock.Now(), c.heldBy(ctx, existing, m))
		if !ok {
			if err := c.roomToBuild(full, m()); err != nil {
				return ipc.Sandbox{}, err
			}
		}
		if ok {
			if !existing.State.Active() {
				if err := c.start(ctx, existing, false, m()); err != nil {
					return ipc.Sandbox{}, err
				}
			}
			return c.Inspect(ctx, ipc.Ref{Prefix: req.Prefix, Name: req.Name})
		}
		if err := c.destroy(ctx, existing, false, "rebuilt: "+why); err != nil {
			return ipc.Sandbox{}, err
		}
		reason = "rebuilt, workspace kept: " + why
	} else if err := c.roomToBuild(full, m()); err != nil {
		return ipc.Sandbox{}, err
	}
	r, err := c.build(ctx, req.Prefix, req.Name, full, s, reason)
	if err != nil {
		return ipc.Sandbox{}, err
	}
	if err := c.start(ctx, r, true, m()); err != nil {
		return ipc.Sandbox{}, err
	}
	return c.Inspect(ctx, ipc.Ref{Prefix: req.Prefix, Name: req.Name})
}

// build writes a new, stopped sandbox with its folders.
func (c *Controller) build(ctx context.Context, prefix, name, full string, s shape, reason string) (*record, error) {
	id, err := newID()
	if err != nil {
		return nil, err
	}
	r := &record{
		ID: id, FullName: full, Prefix: prefix, Name: name,
		Backend: s.Backend, Image: s.Image.Name, ImageDigest: s.Image.Digest,
		MemoryMiB: s.MemoryMiB, CPUs: s.CPUs, DiskMiB: s.DiskMiB, Pids: s.Pids, Network: s.Network,
		NestedUserns: s.NestedUserns,
		IdleTimeout:  s.IdleTimeout, MaxLifetime: s.MaxLifetime, StopGrace: s.StopGrace,
		State: ipc.StateStopped, CreatedAt: c.clock.Now(),
	}
	// a failed create leaves nothing behind: no state folder, and no
	// workspace unless one was already there (a rebuild keeps it)
	ws := c.workspace(full)
	_, err = os.Lstat(ws)
	hadWorkspace := err == nil
	undo := func() {
		removeTree(c.stateDir(id))
		if !hadWorkspace {
			os.Remove(ws) // only if still empty
		}
	}
	for _, dir := range []string{c.stateDir(id), ws} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			undo()
			return nil, diskError(fmt.Sprintf("create sandbox %s", full), dir, err)
		}
	}
	// sandbox.json is only read to rebuild a lost database, and the
	// database keeps a new record no more durably than this (WAL,
	// synchronous=NORMAL): its sync is left to the background rather
	// than added to every create. A crash before it lands leaves at worst
	// an empty file, which the next launch rewrites (describeAll).
	// On Windows a file held open cannot be renamed over, so there the
	// sync stays on the create's path.
	var meta *os.File
	if runtime.GOOS == "windows" {
		err = writeMeta(c.stateDir(id), r)
	} else {
		meta, err = writeMetaUnsynced(c.stateDir(id), r)
	}
	if err != nil {
		undo()
		return nil, diskError(fmt.Sprintf("create sandbox %s", full), c.stateDir(id), err)
	}
	if meta != nil {
		c.metaSyncs.Add(1)
		go func() {
			defer c.metaSyncs.Done()
			meta.Sync()
			meta.Close()
			if d, err := os.Open(c.stateDir(id)); err == nil {
				d.Sync() // the rename
				d.Close()
			}
		}()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.setStateLocked(ctx, r, reason); err != nil {
		undo()
		return nil, fmt.Errorf("create sandbox %s: %w", full, err)
	}
	return r, nil
}

func newID() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make sandbox id: %w", err)
	}
	return "sb-" + hex.EncodeToString(b), nil
}

// get copies the record of a full name, or returns nil.
func (c *Controller) get(full string) *record {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.boxes[full]; ok {
		cp := *r
		return &cp
	}
	return nil
}

// start admits r (waiting in the queue if the host is full) and boots it.
// A start that is called off while queued leaves r as it was, or, for a
// sandbox built by this very call (fresh), leaves nothing at all. m is
// the host as this start measured it.
func (c *Controller) start(ctx context.Context, r *record, fresh bool, m measured) error {
	lim, err := c.limitsOn(ctx, m)
	if err != nil {
		return err
	}
	before := r.State
	c.mu.Lock()
	c.atOnce = lim.AtOnce
	w, err := c.enqueueLocked(ctx, r, lim.AtOnce)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if w != nil {
		if err := c.await(ctx, w, before); err != nil {
			if fresh {
				c.forget(r)
			}
			return err
		}
	}
	return c.boot(ctx, r.FullName, m)
}

// forget deletes a sandbox that never ran and its folders; its workspace
// goes only if nothing was ever put in it.
func (c *Controller) forget(r *record) {
	c.mu.Lock()
	err := c.commitLocked(context.Background(), change{delete: []string{r.ID}, event: ipc.Event{
		Time: c.clock.Now(), Kind: ipc.EventState, Sandbox: r.FullName, ID: r.ID, Message: "called off before it started"}})
	c.mu.Unlock()
	if err != nil {
		c.log.Error("forget sandbox", "sandbox", r.FullName, "err", err)
		return
	}
	os.RemoveAll(c.stateDir(r.ID))
	os.Remove(c.workspace(r.FullName)) // only succeeds when empty
}

// boot decides the memory of a sandbox already marked starting, with
// itself counted, and asks the backend to start it with that one number.
func (c *Controller) boot(ctx context.Context, full string, m measured) error {
	r := c.get(full)
	if r == nil {
		return ipc.Errorf(ipc.ErrNotFound, "sandbox %s vanished while starting", full)
	}
	b, err := c.backendOf(r)
	if err != nil {
		return c.failStart(ctx, r, err)
	}
	d, err := c.decide(ctx, r.MemoryMiB, m, true)
	if err != nil {
		return c.failStart(ctx, r, err)
	}
	spec := backends.Spec{
		ID: r.ID, Name: r.FullName, Root: c.root,
		Image:     backends.Image{Name: r.Image, Digest: r.ImageDigest},
		MemoryMiB: d.MemoryMiB, CPUs: pick(r.CPUs, d.CPUs), DiskMiB: pick(r.DiskMiB, d.DiskMiB), Pids: r.Pids, Network: r.Network,
		NestedUserns: r.NestedUserns,
		Workspace:    c.workspace(r.FullName), StateDir: c.stateDir(r.ID),
	}
	c.Progress(r.FullName, 0, "starting ("+r.Backend+")")
	started, err := b.Start(ctx, spec)
	c.Progress(r.FullName, 1, "")
	if err != nil {
		return c.failStart(ctx, r, fmt.Errorf("start sandbox %s: %w", r.FullName, err))
	}
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	r.State, r.Error, r.Restore = ipc.StateRunning, "", false
	r.ReservedMiB, r.LimitMiB, r.Accel = started.ReservedMiB, started.MemoryLimitMiB, started.Accel
	r.HeldCPUs, r.HeldDiskMiB = spec.CPUs, spec.DiskMiB
	r.PidsLimit, r.DiskLimitMiB = started.PidsLimit, started.DiskLimitMiB
	if cur := c.boxes[r.FullName]; cur != nil && cur.ID == r.ID {
		// what the backend noticed while it started ("not enforced")
		r.OOMKills, r.PidsLimitHits, r.LastNotice, r.LastNoticeAt = cur.OOMKills, cur.PidsLimitHits, cur.LastNotice, cur.LastNoticeAt
	}
	r.StartedAt, r.LastUsedAt, r.CheckpointAt = now, now, time.Time{}
	return c.setStateLocked(ctx, r, "running")
}

// failStart marks r broken with the reason, frees its slot, and returns
// the error.
func (c *Controller) failStart(ctx context.Context, r *record, err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r.State, r.Error, r.ReservedMiB, r.LimitMiB, r.Restore = ipc.StateBroken, err.Error(), 0, 0, false
	r.PidsLimit, r.DiskLimitMiB = 0, 0
	if serr := c.setStateLocked(ctx, r, err.Error()); serr != nil {
		c.log.Error("record failed start", "sandbox", r.FullName, "err", serr)
	}
	c.admitNextLocked(ctx)
	if errors.Is(err, ipc.ErrInvalid) || errors.Is(err, ipc.ErrUnavailable) {
		return err
	}
	return ipc.Errorf(ipc.ErrUnavailable, "%w", err)
}

// Stop stops a sandbox gracefully and keeps it and its workspace. Stopping
// what is not running changes nothing.
func (c *Controller) Stop(ctx context.Context, ref ipc.Ref) (ipc.Sandbox, error) {
	return c.stop(ctx, ref, "stopped")
}

func (c *Controller) stop(ctx context.Context, ref ipc.Ref, reason string) (ipc.Sandbox, error) {
	full, err := fullName(ref.Prefix, ref.Name)
	if err != nil {
		return ipc.Sandbox{}, err
	}
	c.cancelQueued(full)
	unlock, err := c.lockName(ctx, full)
	if err != nil {
		return ipc.Sandbox{}, err
	}
	defer unlock()
	r := c.get(full)
	if r == nil || r.Prefix != ref.Prefix {
		return ipc.Sandbox{}, ipc.Errorf(ipc.ErrNotFound, "no sandbox named %s", full)
	}
	if r.State.Active() {
		if err := c.halt(ctx, r, reason); err != nil {
			return ipc.Sandbox{}, err
		}
		c.enforceRetention(ctx)
	}
	return c.Inspect(ctx, ref)
}

// halt stops r's backend sandbox: stopping, then stopped or suspended. Its
// reservation is returned at once and the next queued start admitted.
func (c *Controller) halt(ctx context.Context, r *record, reason string) error {
	b, err := c.backendOf(r)
	if err != nil {
		return err
	}
	// "stopping" is saved while the backend stops the sandbox, not before:
	// the write is off the stop's path. The sandbox is stopped whether or
	// not the disk can say so (on a full disk it may well be what fills
	// it); "stopped" is saved after "stopping", never before.
	id, grace := r.ID, r.StopGrace
	marked := make(chan error, 1)
	go func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		r.State = ipc.StateStopping
		marked <- c.setStateLocked(ctx, r, "stopping")
	}()
	res, stopErr := b.Stop(ctx, id, grace)
	markErr := <-marked
	c.mu.Lock()
	defer c.mu.Unlock()
	r.ReservedMiB, r.LimitMiB, r.PidsLimit, r.DiskLimitMiB = 0, 0, 0, 0
	r.Restore = reason == reasonShutdown
	switch {
	case stopErr != nil:
		r.State, r.Error = ipc.StateBroken, "stop: "+stopErr.Error()
		reason = r.Error
	case res.Checkpointed:
		r.State, r.CheckpointAt = ipc.StateSuspended, c.clock.Now()
	default:
		r.State = ipc.StateStopped
	}
	ch := change{put: []*record{r}, event: c.stateEvent(r, reason)}
	if err = c.commitLocked(ctx, ch); isDiskFull(err) && stopErr == nil {
		// it is stopped whether or not the disk can say so: memory
		// follows the truth, saved with the next change that fits
		c.keepUnsavedLocked(ch)
		c.log.Warn("stopped, but the disk is full: the state is saved once there is space", "sandbox", r.FullName, "err", err)
		err = nil
	}
	c.admitNextLocked(ctx)
	if stopErr != nil {
		return ipc.Errorf(ipc.ErrUnavailable, "stop sandbox %s: %w", r.FullName, stopErr)
	}
	if markErr != nil && !isDiskFull(markErr) {
		c.log.Warn("record stopping", "sandbox", r.FullName, "err", markErr)
	}
	return err
}

// Remove deletes a sandbox and its workspace. It reports whether there was
// anything to remove; removing what is gone is not an error.
func (c *Controller) Remove(ctx context.Context, ref ipc.Ref) (bool, error) {
	full, err := fullName(ref.Prefix, ref.Name)
	if err != nil {
		return false, err
	}
	c.cancelQueued(full)
	unlock, err := c.lockName(ctx, full)
	if err != nil {
		return false, err
	}
	defer unlock()
	r := c.get(full)
	if r == nil || r.Prefix != ref.Prefix {
		return false, nil
	}
	return true, c.destroy(ctx, r, true, "removed")
}

// RemoveAll removes every sandbox of this root with the given prefix and
// returns the names of those it removed.
func (c *Controller) RemoveAll(ctx context.Context, prefix string) ([]string, error) {
	var errs []error
	removed := []string{}
	for _, r := range c.snapshot(prefix, false) {
		ok, err := c.Remove(ctx, ipc.Ref{Prefix: r.Prefix, Name: r.Name})
		if ok {
			removed = append(removed, r.Name)
		}
		errs = append(errs, err)
	}
	return removed, errors.Join(errs...)
}
