package vm

import (
	"context"
	"errors"
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
	_, err := agent.Call(cctx, m.dial, agent.Request{Op: "poweroff", GraceMs: grace.Milliseconds()})
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
		out = append(out, backends.Observed{ID: id, Running: b.adopt(ctx, id, dir)})
	}
	return out, nil
}

// adopt says whether the machine in dir runs, taking it over when this
// backend did not boot it.
func (b *Backend) adopt(ctx context.Context, id, dir string) bool {
	if b.get(id) != nil {
		return true
	}
	rec, err := readRecord(dir)
	if err != nil {
		return false
	}
	h, err := b.cfg.Driver.Attach(ctx, dir)
	if err != nil {
		return false
	}
	b.mu.Lock()
	_, known := b.machines[id]
	b.mu.Unlock()
	if known {
		h.Close()
		return true
	}
	b.register(&machine{id: id, dir: dir, h: h, record: rec})
	return true
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

// Accel says how a running sandbox's machine runs ("kvm", "tcg").
func (b *Backend) Accel(id string) (string, error) {
	m := b.get(id)
	if m == nil {
		return "", backends.ErrNotRunning
	}
	if m.record.Accel == "" {
		return "", errors.New("unknown")
	}
	return m.record.Accel, nil
}
