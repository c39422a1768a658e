package controller

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"sandboxdesk/ipc"
)

// Sweep stops every running sandbox that has been idle past its idle
// timeout or alive past its max lifetime: a polite stop, then a kill after
// its stop grace (the backend's Stop does both). A sandbox running a
// command is not idle.
func (c *Controller) Sweep(ctx context.Context) {
	now := c.clock.Now()
	type due struct {
		ref    ipc.Ref
		reason string
	}
	var stop []due
	c.mu.Lock()
	for _, r := range c.boxes {
		if r.State != ipc.StateRunning {
			continue
		}
		ref := ipc.Ref{Prefix: r.Prefix, Name: r.Name}
		switch {
		case r.MaxLifetime > 0 && now.Sub(r.CreatedAt) >= r.MaxLifetime:
			stop = append(stop, due{ref, fmt.Sprintf("stopped: max lifetime %v reached", r.MaxLifetime)})
		case r.IdleTimeout > 0 && c.execs[r.ID] == 0 && now.Sub(r.LastUsedAt) >= r.IdleTimeout:
			stop = append(stop, due{ref, fmt.Sprintf("stopped: idle for %v", now.Sub(r.LastUsedAt).Round(time.Second))})
		}
	}
	c.mu.Unlock()
	for _, d := range stop {
		if _, err := c.stop(ctx, d.ref, d.reason); err != nil {
			c.log.Warn("sweep", "sandbox", d.ref.Name, "err", err)
		}
	}
}

// RunSweeps sweeps every interval until ctx ends.
func (c *Controller) RunSweeps(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.Sweep(ctx)
		}
	}
}

// enforceRetention keeps at most "retained" checkpoints, dropping the
// oldest first; that sandbox cold-boots next time. It never touches a
// workspace, and skips a sandbox another operation holds.
func (c *Controller) enforceRetention(ctx context.Context) {
	var held []record
	for _, r := range c.snapshot("", true) {
		if !r.CheckpointAt.IsZero() && r.State == ipc.StateSuspended {
			held = append(held, r)
		}
	}
	if len(held) == 0 {
		// nothing to drop: the limit, which measures the host, is not
		// worth a stop's time
		return
	}
	lim, err := c.Limits(ctx)
	if err != nil {
		c.log.Warn("retention", "err", err)
		return
	}
	sort.Slice(held, func(i, j int) bool { return held[i].CheckpointAt.Before(held[j].CheckpointAt) })
	for i := 0; i < len(held)-lim.Retained; i++ {
		c.dropCheckpoint(ctx, held[i])
	}
}

func (c *Controller) dropCheckpoint(ctx context.Context, r record) {
	unlock, ok := c.tryLockName(r.FullName)
	if !ok {
		return
	}
	defer unlock()
	b, err := c.backendOf(&r)
	if err != nil {
		return
	}
	if d, ok := b.(checkpointDropper); ok {
		if err := d.DropCheckpoint(ctx, r.ID); err != nil {
			c.log.Warn("drop checkpoint", "sandbox", r.FullName, "err", err)
			return
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.boxes[r.FullName]
	if !ok || cur.ID != r.ID || cur.State != ipc.StateSuspended {
		return
	}
	cp := *cur
	cp.State, cp.CheckpointAt = ipc.StateStopped, time.Time{}
	if err := c.setStateLocked(ctx, &cp, "checkpoint dropped: more than the retained limit"); err != nil {
		c.log.Warn("drop checkpoint", "sandbox", r.FullName, "err", err)
	}
}

// removeTree deletes a folder and everything in it without following
// symbolic links out of it: a link planted inside is removed, never its
// target. os.RemoveAll already works this way (it unlinks links and opens
// directories relative to their parent); the check on the top itself
// refuses a folder that was replaced by a link.
func removeTree(dir string) error {
	fi, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return os.Remove(dir)
	}
	err = os.RemoveAll(dir)
	if errors.Is(err, fs.ErrPermission) {
		// a sandbox made a folder of its own unreadable or read-only
		// (chmod 0, chmod 500) to outlive rm: open its folders to their
		// owner and try again
		openFolders(dir)
		err = os.RemoveAll(dir)
	}
	return err
}

// openFolders gives the owner every right on each folder under dir, the
// ones it could not list included. WalkDir visits a folder before it
// reads it and never follows a link; no process of the sandbox runs
// while it is removed, and 0700 takes nothing from the owner nor gives
// anything to others, whatever it lands on.
func openFolders(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() && err == nil {
			os.Chmod(p, 0o700)
		}
		return nil
	})
}
