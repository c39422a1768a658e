package vm

import (
	"context"
	"fmt"
	"os"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/agent"
)

// forceAfter is how long a machine is given past the grace to turn itself
// off once its commands ended, before it is forced off.
const forceAfter = 10 * time.Second

// Stop saves the machine where the hypervisor can, so its next start
// finds every process as it was; otherwise (or when the save fails) it
// asks the guest to end its commands within grace and power off, and
// forces the machine off when it does not.
func (b *Backend) Stop(ctx context.Context, id string, grace time.Duration) (backends.Stopped, error) {
	m := b.take(id)
	if m == nil {
		return backends.Stopped{}, nil
	}
	defer m.close()
	if b.cfg.Driver.CanCheckpoint() {
		err := b.checkpoint(ctx, m)
		if err == nil {
			return backends.Stopped{Checkpointed: true}, nil
		}
		b.tell(ctx, backends.Event{ID: id, Message: "stopped cold, without a checkpoint: " + err.Error()})
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, err := call(cctx, m.dial, agent.Request{Op: "poweroff", GraceMs: grace.Milliseconds()})
	cancel()
	if err == nil {
		select {
		case <-m.h.Exited():
			return backends.Stopped{}, nil
		case <-time.After(grace + forceAfter):
		case <-ctx.Done():
		}
	}
	if err := m.h.Kill(context.WithoutCancel(ctx)); err != nil {
		return backends.Stopped{}, fmt.Errorf("vm %s: force off: %w", id, err)
	}
	return backends.Stopped{}, nil
}

// Remove forces the machine off if it runs and deletes its folder: disk,
// checkpoint, logs. The workspace is the controller's and stays.
func (b *Backend) Remove(ctx context.Context, id string) error {
	dir, err := b.dir(id)
	if err != nil {
		return err
	}
	if m := b.take(id); m != nil {
		m.h.Kill(ctx)
		m.close()
	} else if h, err := b.cfg.Driver.Attach(ctx, dir); err == nil {
		h.Kill(ctx)
		h.Close()
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("vm %s: %w", id, err)
	}
	return nil
}

// Observe lists every sandbox folder and whether its machine runs,
// adopting machines an earlier controller booted.
func (b *Backend) Observe(ctx context.Context) ([]backends.Observed, error) {
	entries, err := os.ReadDir(b.cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("vm backend: %w", err)
	}
	var out []backends.Observed
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		id := e.Name()
		dir, err := b.dir(id)
		if err != nil {
			continue
		}
		o := backends.Observed{ID: id}
		if m := b.adopt(ctx, id, dir); m != nil {
			st := m.started()
			o.Running, o.ReservedMiB, o.Accel = true, st.ReservedMiB, st.Accel
		}
		out = append(out, o)
	}
	return out, nil
}

// adopt returns the machine running in dir, taking it over when this
// backend did not boot it; nil when none runs.
func (b *Backend) adopt(ctx context.Context, id, dir string) *machine {
	if m := b.get(id); m != nil {
		return m
	}
	rec, err := readRecord(dir)
	if err != nil {
		return nil
	}
	h, err := b.cfg.Driver.Attach(ctx, dir)
	if err != nil {
		return nil
	}
	b.mu.Lock()
	known := b.machines[id]
	b.mu.Unlock()
	if known != nil {
		h.Close()
		return known
	}
	m := &machine{id: id, dir: dir, h: h, record: rec}
	b.register(m)
	return m
}

// MemoryMiB reads back from the hypervisor the memory a running sandbox
// has.
func (b *Backend) MemoryMiB(ctx context.Context, id string) (int64, error) {
	m := b.get(id)
	if m == nil {
		return 0, backends.ErrNotRunning
	}
	return m.h.MemoryMiB(ctx)
}
