package controller

import (
	"context"
	"errors"
	"strings"

	"sandboxdesk/backends"
	"sandboxdesk/ipc"
)

// List returns the sandboxes of one fleet (prefix), oldest first.
func (c *Controller) List(ctx context.Context, prefix string) ([]ipc.Sandbox, error) {
	recs := c.snapshot(prefix, false)
	out := make([]ipc.Sandbox, 0, len(recs))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range recs {
		out = append(out, c.viewLocked(&recs[i]))
	}
	return out, nil
}

// Inspect returns one sandbox.
func (c *Controller) Inspect(ctx context.Context, ref ipc.Ref) (ipc.Sandbox, error) {
	full, err := fullName(ref.Prefix, ref.Name)
	if err != nil {
		return ipc.Sandbox{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.boxes[full]
	if !ok || r.Prefix != ref.Prefix {
		return ipc.Sandbox{}, ipc.Errorf(ipc.ErrNotFound, "no sandbox named %s", full)
	}
	return c.viewLocked(r), nil
}

func (c *Controller) viewLocked(r *record) ipc.Sandbox {
	v := ipc.Sandbox{
		Name: r.Name, Prefix: r.Prefix, ID: r.ID, State: r.State, Image: r.Image, Backend: r.Backend,
		CreatedAt: r.CreatedAt, IdleTimeoutMs: r.IdleTimeout.Milliseconds(),
		MaxLifetimeMs: r.MaxLifetime.Milliseconds(), StopGraceMs: r.StopGrace.Milliseconds(),
		MemoryMiB: r.MemoryMiB, ReservedMiB: r.ReservedMiB, MemoryLimitMiB: r.LimitMiB,
		CPUs: r.CPUs, DiskMiB: r.DiskMiB, Network: string(r.Network),
		NestedUserns: r.NestedUserns,
		Pids:         r.Pids, PidsLimit: r.PidsLimit, DiskLimitMiB: r.DiskLimitMiB,
		OOMKills: r.OOMKills, PidsLimitHits: r.PidsLimitHits, LastNotice: r.LastNotice,
		QueuePosition: c.queuePositionLocked(r.FullName),
		Checkpoint:    !r.CheckpointAt.IsZero(), Workspace: c.workspace(r.FullName), Error: r.Error,
	}
	if r.State.Active() {
		// stale once it stops: the next boot may run otherwise
		v.Accel = r.Accel
	}
	if !r.StartedAt.IsZero() {
		t := r.StartedAt
		v.StartedAt = &t
	}
	if !r.LastNoticeAt.IsZero() {
		t := r.LastNoticeAt
		v.LastNoticeAt = &t
	}
	if !r.LastUsedAt.IsZero() {
		t := r.LastUsedAt
		v.LastUsedAt = &t
	}
	return v
}

// Exec runs a command in a running sandbox and returns its exit status.
// While it runs the sandbox is in use, so the idle sweep leaves it alone.
func (c *Controller) Exec(ctx context.Context, ref ipc.Ref, req backends.ExecRequest) (int, error) {
	full, err := fullName(ref.Prefix, ref.Name)
	if err != nil {
		return -1, err
	}
	if len(req.Args) == 0 {
		return -1, ipc.Errorf(ipc.ErrInvalid, "no command given")
	}
	for _, kv := range req.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return -1, ipc.Errorf(ipc.ErrInvalid, "environment entry %q is not KEY=VALUE", kv)
		}
	}
	r := c.get(full)
	if r == nil || r.Prefix != ref.Prefix {
		return -1, ipc.Errorf(ipc.ErrNotFound, "no sandbox named %s", full)
	}
	if r.State != ipc.StateRunning {
		return -1, ipc.Errorf(ipc.ErrConflict, "sandbox %s is %s; 'sandboxdesk create %s' starts it", full, r.State, ref.Name)
	}
	b, err := c.backendOf(r)
	if err != nil {
		return -1, err
	}
	if _, ok := b.(handsOver); !ok && req.HandOver != nil {
		// the client asked for the agent's connection; this backend's
		// commands stream through here, which it hears before they start
		if _, _, err := req.HandOver(ctx, nil); err != nil {
			return -1, err
		}
		req.HandOver = nil
	}
	c.touch(ctx, full, +1)
	defer c.touch(ctx, full, -1)
	code, err := b.Exec(ctx, r.ID, req)
	if errors.Is(err, backends.ErrNotRunning) {
		return code, ipc.Errorf(ipc.ErrConflict, "sandbox %s is not running", full)
	}
	var invalid *backends.InvalidError
	if errors.As(err, &invalid) {
		return code, ipc.Errorf(ipc.ErrInvalid, "%s in sandbox %s", invalid.Message, full)
	}
	return code, err
}

// handsOver is a backend whose Exec offers its connection to the command
// to req.HandOver.
type handsOver interface{ HandsOver() }

// touch marks a sandbox used now and counts execs in flight.
func (c *Controller) touch(ctx context.Context, full string, delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.boxes[full]
	if !ok {
		return
	}
	c.execs[r.ID] += delta
	if c.execs[r.ID] <= 0 {
		delete(c.execs, r.ID)
	}
	cp := *r
	cp.LastUsedAt = c.clock.Now()
	ch := change{put: []*record{&cp}, minor: true}
	if delta > 0 {
		// the start of an exec is kept in memory and saved with its end
		// (or the next change before it): one write to the database per
		// exec, not two
		c.keepUnsavedLocked(ch)
		return
	}
	if err := c.commitLocked(ctx, ch); err != nil {
		c.log.Warn("record use", "sandbox", full, "err", err)
	}
}
